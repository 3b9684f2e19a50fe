"""Bad input to a command is one line `path: reason` on stderr and exit 1, never a traceback.

Real failures, no mocks: a full disk is a 64 KiB tmpfs filled to the last block (and
/dev/full), a folder the user may not write is a 0555 folder with the command run without
CAP_DAC_OVERRIDE (we are root here and in CI; `setpriv` drops the capability, so the mode
bits apply to root as to anyone).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from paths import EXAMPLE_SESSION

# Run as root but bound by permission bits, as an ordinary user is.
NO_DAC = ["setpriv", "--bounding-set=-dac_override,-dac_read_search",
          "--inh-caps=-dac_override,-dac_read_search", "--"]


def cockpit(*args, bounded: bool = False, stdin: str | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable, "-m", "cockpit", *map(str, args)]
    return subprocess.run(NO_DAC + argv if bounded else argv, capture_output=True, text=True, timeout=120,
                          input=stdin)


def one_line(done: subprocess.CompletedProcess, expected: str) -> None:
    """Exit 1, nothing on stdout, exactly the line `expected` on stderr."""
    assert "Traceback" not in done.stderr, done.stderr
    assert (done.returncode, done.stdout, done.stderr) == (1, "", expected + "\n")


@pytest.fixture
def session(tmp_path) -> Path:
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    return path


@pytest.fixture
def full_disk(tmp_path):
    """A 64 KiB tmpfs with no free block left, and a session copied in before it filled."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(mnt)], capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"mount tmpfs failed (the test needs root): {done.stderr.strip()}")
    try:
        shutil.copy(EXAMPLE_SESSION, mnt / "s.toml")
        (mnt / "old.md").write_text("the previous handoff\n")
        # not canonical (one blank line more), so that `fmt` has to write it
        (mnt / "messy.toml").write_text(EXAMPLE_SESSION.read_text().replace("\n\n", "\n\n\n", 1))
        fd = os.open(mnt / "filler", os.O_WRONLY | os.O_CREAT)
        try:
            while os.write(fd, b"\0" * 4096):
                pass
        except OSError:  # ENOSPC: full
            pass
        finally:
            os.close(fd)
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


@pytest.fixture
def read_only_folder(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    shutil.copy(EXAMPLE_SESSION, folder / "s.toml")
    folder.chmod(0o555)
    yield folder
    folder.chmod(0o755)


# -- add -------------------------------------------------------------------------------------
def test_add_to_a_missing_file_says_so_and_creates_nothing(tmp_path):
    path = tmp_path / "typo.toml"
    one_line(cockpit("add", "task", path, "x"),
             f"{path}: no such file (a session is created by opening it: cockpit {path})")
    assert list(tmp_path.iterdir()) == []  # neither the session nor its lock file


def test_add_to_a_folder(tmp_path):
    one_line(cockpit("add", "note", tmp_path, "x"), f"{tmp_path}: Is a directory")
    assert list(tmp_path.parent.glob(f".{tmp_path.name}.lock")) == []


def test_add_on_a_full_disk_keeps_the_session(full_disk):
    path = full_disk / "s.toml"
    before = path.read_bytes()
    one_line(cockpit("add", "task", path, "a task " * 200), f"{path}: No space left on device")
    assert path.read_bytes() == before


def test_add_where_the_folder_may_not_be_written(read_only_folder):
    path = read_only_folder / "s.toml"
    before = path.read_bytes()
    done = cockpit("add", "task", path, "x", bounded=True)
    # What blocks it, not a bare "Permission denied": the lock cannot be made in the folder.
    one_line(done, f"{path}: cannot take the session lock {read_only_folder / '.s.toml.lock'}: "
                   f"this user cannot create files in {read_only_folder}")
    assert path.read_bytes() == before


def test_bench_import_into_a_missing_session(tmp_path):
    log = tmp_path / "bench.log"
    log.write_text("============ Serving Benchmark Result ============\nSuccessful requests: 1\n")
    one_line(cockpit("bench", "import", tmp_path / "nope.toml", log),
             f"{tmp_path / 'nope.toml'}: no such file (a session is created by opening it: cockpit {tmp_path / 'nope.toml'})")


def test_bench_import_of_an_unreadable_file(session, tmp_path):
    one_line(cockpit("bench", "import", session, tmp_path), f"{tmp_path}: Is a directory")


# -- export -o -------------------------------------------------------------------------------
def test_export_into_a_missing_folder(session, tmp_path):
    out = tmp_path / "no" / "such" / "handoff.md"
    one_line(cockpit("export", session, "-o", out), f"{out}: no folder {out.parent}")


def test_export_to_dev_full(session):
    one_line(cockpit("export", session, "-o", "/dev/full"), "/dev/full: No space left on device")


def test_export_on_a_full_disk_keeps_the_previous_file(session, full_disk):
    out = full_disk / "old.md"
    one_line(cockpit("export", session, "-o", out), f"{out}: No space left on device")
    assert out.read_text() == "the previous handoff\n"


def test_export_where_the_folder_may_not_be_written(session, read_only_folder):
    out = read_only_folder / "handoff.md"
    done = cockpit("export", session, "--format", "json", "-o", out, bounded=True)
    assert done.returncode == 1 and done.stdout == "" and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"{out}: ") and "Permission denied" in done.stderr
    assert not out.exists()


def test_export_to_a_device_still_streams(session):
    done = cockpit("export", session, "--format", "json", "-o", "/dev/stdout")
    assert done.returncode == 0 and done.stdout.startswith("{")


# -- the commands that read ------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv",
    [("check",), ("fmt",), ("fmt", "--check"), ("export",), ("diff", "{}", "l1", "l2"), ("drift",), ("timeline",),
     ("parse-log",), ("topo",)],
    ids=lambda a: a[0] if a[0] != "fmt" or len(a) == 1 else "fmt-check",
)
def test_reading_a_folder(tmp_path, argv):
    args = [a.format(tmp_path) for a in argv] if "{}" in argv else [*argv, tmp_path]
    done = cockpit(*args)
    prefix = "cockpit: " if argv[0] == "topo" else ""
    one_line(done, f"{prefix}{tmp_path}: Is a directory")


@pytest.mark.parametrize("argv", [("check",), ("timeline",), ("parse-log",), ("topo",), ("export",), ("drift",)],
                         ids=lambda a: a[0])
def test_reading_a_file_without_the_right_to(tmp_path, argv):
    path = tmp_path / "secret.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    path.chmod(0o000)
    tmp_path.chmod(0o755)
    prefix = "cockpit: " if argv[0] == "topo" else ""
    one_line(cockpit(*argv, path, bounded=True), f"{prefix}{path}: Permission denied")


def test_parse_log_of_a_missing_file(tmp_path):
    one_line(cockpit("parse-log", tmp_path / "none.log"), f"{tmp_path / 'none.log'}: No such file or directory")


def test_tail_of_a_folder_and_of_a_file_without_the_right_to(tmp_path):
    one_line(cockpit("tail", tmp_path), f"cockpit tail: {tmp_path}: Is a directory")
    log = tmp_path / "server.log"
    log.write_text("x\n")
    log.chmod(0o000)
    one_line(cockpit("tail", log, bounded=True), f"cockpit tail: {log}: Permission denied")


def test_fmt_on_a_full_disk(full_disk):
    path = full_disk / "messy.toml"
    before = path.read_bytes()
    one_line(cockpit("fmt", path), f"{path}: No space left on device")
    assert path.read_bytes() == before


def test_gpus_with_an_ssh_config_that_cannot_be_read(tmp_path):
    # before any network: the config names the host's port and keys; a retry would read it again
    missing = tmp_path / "ssh_config"
    one_line(cockpit("gpus", "--once", "gpu1", "--ssh-config", missing),
             f"cockpit: gpu1: not connecting: {missing}: No such file or directory")


def test_main_turns_any_stray_oserror_into_one_line(monkeypatch, capsys):
    """The last line of defence in main(): a handler that forgot one still gives `path: reason`."""
    import cockpit.cli as cli
    from cockpit.cli.session import file_cmds as session_cmds

    def broken(_args):
        raise IsADirectoryError(21, "Is a directory", "/some/where")

    monkeypatch.setattr(session_cmds, "cmd_check", broken)
    assert cli.main(["check", "x.toml"]) == 1
    assert capsys.readouterr().err == "/some/where: Is a directory\n"


def test_nothing_is_written_where_a_command_failed_to_read(tmp_path):
    # the files the failures above must not leave behind: no temp, no lock beside a missing file
    cockpit("add", "task", tmp_path / "a.toml", "x")
    cockpit("export", tmp_path / "a.toml", "-o", tmp_path / "a.md")
    assert sorted(os.listdir(tmp_path)) == []
