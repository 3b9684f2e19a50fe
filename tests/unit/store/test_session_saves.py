"""Saves keep what the user set: links, mode, group, owner, read-only; temps never left or
followed; a full disk or a kill -9 never costs the file. Real filesystem, run as root (CI is)."""

import errno
import os
import random
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

import planted
from paths import EXAMPLE_SESSION

from cockpit.model.session import Session, Task, now
from cockpit.store.atomic_write import SaveError, SessionReadOnlyError
from cockpit.store.toml_store import dumps_session, load_session, loads_session, save_session, write_atomic


@pytest.fixture(scope="module")
def other_user():
    """(uid, gid) of a second local user and its group (tests/planted.py)."""
    return planted.other_user()


@pytest.fixture
def example() -> Session:
    return load_session(EXAMPLE_SESSION)


def edited(session: Session, title: str) -> Session:
    return session.model_copy(update={"title": title})


def temps(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def cockpit(*args):
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True)


# ----- links ------------------------------------------------------------------------------

def test_a_symlinked_session_stays_a_link_and_its_target_is_replaced(tmp_path, example):
    (tmp_path / "real").mkdir()
    (tmp_path / "work").mkdir()
    target = tmp_path / "real" / "s.toml"
    save_session(example, target)
    link = tmp_path / "work" / "s.toml"
    link.symlink_to("../real/s.toml")
    old_inode = target.stat().st_ino

    save_session(edited(example, "through the link"), link)

    assert link.is_symlink() and os.readlink(link) == "../real/s.toml"
    assert load_session(target).title == "through the link"
    assert target.stat().st_ino != old_inode, "replaced by rename, not rewritten in place"
    assert load_session(tmp_path / "real" / "s.toml.bak") == example, ".bak beside the file it backs up"
    assert sorted(p.name for p in (tmp_path / "work").iterdir()) == ["s.toml"]


def test_a_chain_of_links_is_followed_to_the_file(tmp_path, example):
    target = tmp_path / "store" / "campaign.toml"
    target.parent.mkdir()
    save_session(example, target)
    middle = tmp_path / "middle.toml"
    middle.symlink_to(target)
    first = tmp_path / "first.toml"
    first.symlink_to("middle.toml")

    save_session(edited(example, "via two links"), first)

    assert first.is_symlink() and middle.is_symlink()
    assert os.readlink(first) == "middle.toml" and os.readlink(middle) == str(target)
    assert load_session(first).title == load_session(target).title == "via two links"


def test_a_loop_of_links_is_an_error_naming_the_file(tmp_path, example):
    a, b = tmp_path / "a.toml", tmp_path / "b.toml"
    a.symlink_to("b.toml")
    b.symlink_to("a.toml")
    with pytest.raises(OSError, match=re.escape(f"{a}: ")):
        save_session(example, a)
    assert a.is_symlink() and b.is_symlink() and temps(tmp_path) == []


# ----- mode, group, owner -----------------------------------------------------------------

@pytest.mark.parametrize("mode", [0o600, 0o640, 0o660])
def test_mode_group_and_owner_are_kept_on_the_file_and_on_bak(tmp_path, example, other_user, mode):
    uid, gid = other_user
    path = tmp_path / "s.toml"
    save_session(example, path)
    os.chown(path, uid, gid)
    os.chmod(path, mode)

    save_session(edited(example, "second"), path)
    save_session(edited(example, "third"), path)

    for saved in (path, tmp_path / "s.toml.bak"):
        st = saved.stat()
        assert (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid) == (mode, uid, gid), saved
    assert load_session(path).title == "third" and load_session(tmp_path / "s.toml.bak").title == "second"


def test_a_new_session_is_0600_whatever_the_umask_and_an_export_gets_the_umask_mode(tmp_path, example):
    """A session holds launch env and commands (tokens): only its owner reads a new one."""
    old = os.umask(0o022)
    try:
        save_session(example, tmp_path / "new.toml")
        write_atomic(tmp_path / "handoff.md", "# handoff\n", keep_backup=False)
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.toml").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "handoff.md").stat().st_mode) == 0o644


# ----- read-only ----------------------------------------------------------------------------

def test_a_read_only_file_is_refused_with_a_clear_message_and_left_alone(tmp_path, example):
    path = tmp_path / "s.toml"
    save_session(example, path)
    os.chmod(path, 0o444)
    before = path.read_bytes()

    with pytest.raises(SessionReadOnlyError) as err:
        save_session(edited(example, "must not land"), path)

    assert str(err.value) == f"{path}: read-only (chmod u+w to let cockpit save)"
    assert isinstance(err.value, OSError), "callers report OSError already"
    assert path.read_bytes() == before and stat.S_IMODE(path.stat().st_mode) == 0o444
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.toml"], "no .bak, no temp"


def test_fmt_on_a_read_only_file_says_so_in_one_line(tmp_path):
    path = tmp_path / "hand.toml"
    path.write_text('title = "hand"\nschema_version = 1\n', encoding="utf-8")  # not canonical: fmt would write
    os.chmod(path, 0o444)
    done = cockpit("fmt", path)
    assert done.returncode == 1
    assert done.stderr == f"{path}: read-only (chmod u+w to let cockpit save)\n"
    assert path.read_text(encoding="utf-8") == 'title = "hand"\nschema_version = 1\n'


# ----- disk full ----------------------------------------------------------------------------

@pytest.fixture
def small_disk(tmp_path):
    """A 1 MiB tmpfs mounted for the test."""
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "cockpit-test", str(mount)], check=True)
    try:
        yield mount
    finally:
        if subprocess.run(["umount", str(mount)]).returncode:  # busy: a file left open on it
            subprocess.run(["umount", "--lazy", str(mount)], check=True)
            raise AssertionError(f"{mount} was busy: a file on it was left open")


def fill(folder: Path, name: str = "filler", leave: int = 0) -> None:
    """Fill the filesystem, then give back LEAVE bytes (rounded up to pages)."""
    with open(folder / name, "wb", buffering=0) as handle:
        try:
            while True:
                handle.write(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
    if leave:
        os.truncate(folder / name, max(0, (folder / name).stat().st_size - -(-leave // 4096) * 4096))


def big_text(session: Session, tasks: int) -> str:
    stamp = now()
    extra = [Task(id=f"t{1000 + i}", title=f"filler task {i} " + "x" * 40, order=i, created=stamp, updated=stamp)
             for i in range(tasks)]
    return dumps_session(session.model_copy(update={"tasks": [*session.tasks, *extra]}))


@pytest.mark.parametrize("room", ["nothing", "the new file but not the backup"])
def test_a_full_disk_fails_the_save_cleanly_and_keeps_the_file(small_disk, example, room):
    path = small_disk / "s.toml"
    save_session(example, path)
    before = path.read_bytes()
    text = big_text(example, 300)
    fill(small_disk, leave=0 if room == "nothing" else len(text.encode()))

    with pytest.raises(OSError) as err:
        write_atomic(path, text)

    assert err.value.errno == errno.ENOSPC
    assert str(err.value) == f"{path}: No space left on device"
    assert path.read_bytes() == before
    assert temps(small_disk) == [], "no temp file left behind"
    assert not (small_disk / "s.toml.bak").exists()


def test_fmt_on_a_full_disk_fails_in_one_line_and_leaves_no_temp(small_disk):
    path = small_disk / "hand.toml"
    hand = 'title = "hand"\nschema_version = 1\n' + "".join(
        f'[[tasks]]\ntitle = "task {i}"\nid = "t{i}"\n' for i in range(1, 400))
    path.write_text(hand, encoding="utf-8")
    fill(small_disk)
    done = cockpit("fmt", path)
    assert (done.returncode, done.stderr) == (1, f"{path}: No space left on device\n")
    assert path.read_text(encoding="utf-8") == hand
    assert temps(small_disk) == []


# ----- temp files and other users' symlinks -----------------------------------------------

def plant_link(other_user, link: Path, target: Path) -> None:
    """The other user puts a symlink where a temp file might go."""
    subprocess.run(["ln", "-s", str(target), str(link)], check=True, user=other_user[0], group=other_user[1])
    assert link.is_symlink() and link.lstat().st_uid == other_user[0]


@pytest.fixture
def shared_folder():
    """A world-writable folder without the sticky bit, as a careless setup leaves one.

    Made outside pytest's tmp_path, whose parents only root may enter."""
    top = Path(tempfile.mkdtemp(prefix="cockpit-shared-"))
    os.chmod(top, 0o755)
    folder = top / "shared"
    folder.mkdir()
    os.chmod(folder, 0o777)
    victim = top / "victim.txt"
    victim.write_text("precious\n")
    yield folder, victim
    shutil.rmtree(top)


def test_links_at_the_old_predictable_temp_names_are_not_written_through(shared_folder, other_user, example):
    folder, victim = shared_folder
    path = folder / "s.toml"
    save_session(example, path)
    for pid in (os.getpid(), os.getpid() + 1):  # the names the old code used: .NAME.PID.tmp, .NAME.PID.bak.tmp
        plant_link(other_user, folder / f".s.toml.{pid}.tmp", victim)
        plant_link(other_user, folder / f".s.toml.{pid}.bak.tmp", victim)

    save_session(edited(example, "saved anyway"), path)

    assert victim.read_text() == "precious\n"
    assert load_session(path).title == "saved anyway" and not path.is_symlink()
    assert load_session(folder / "s.toml.bak") == example
    assert all((folder / f".s.toml.{os.getpid()}{tail}").is_symlink() for tail in (".tmp", ".bak.tmp"))


def test_a_link_at_the_very_temp_name_drawn_is_skipped_not_followed(shared_folder, other_user, example, monkeypatch):
    """Even a link at the name mkstemp draws is not followed (O_EXCL): it draws another."""
    folder, victim = shared_folder
    path = folder / "s.toml"
    save_session(example, path)
    names = iter(["guessed", "fresh1", "guessed", "fresh2"])
    monkeypatch.setattr(tempfile, "_get_candidate_names", lambda: names)
    plant_link(other_user, folder / ".s.toml.guessed.tmp", victim)
    plant_link(other_user, folder / ".s.toml.bak.guessed.tmp", victim)

    save_session(edited(example, "not through the link"), path)

    assert victim.read_text() == "precious\n"
    assert load_session(path).title == "not through the link"
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE((folder / "s.toml.bak").stat().st_mode)
    assert sorted(p.name for p in folder.iterdir()) == [".s.toml.bak.guessed.tmp", ".s.toml.guessed.tmp",
                                                        "s.toml", "s.toml.bak"]


# ----- kill -9 while saving -----------------------------------------------------------------

_TITLE = re.compile(r'^title = "save (\d+)"$', re.MULTILINE)


def _version(text: str) -> int:
    return int(_TITLE.search(text).group(1))


def _saver(path: Path, write, start: int, done_fd: int) -> None:
    """Child: save versions start, start+1, ... and report each one finished on the pipe."""
    n = start
    while True:
        write(n)
        os.write(done_fd, b".")
        n += 1


def _kill_saves(tmp_path: Path, write, text_of, kills: int, seed: int, longest: float) -> int:
    """Kill a saving child KILLS times; check no version is torn or lost. Returns kills mid-write."""
    path = tmp_path / "s.toml"
    write(0)
    write(1)
    rng = random.Random(seed)
    mid_write = 0
    for _ in range(kills):
        current = _version(path.read_text(encoding="utf-8"))
        read_fd, write_fd = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - child
            try:
                os.close(read_fd)
                _saver(path, write, current + 1, write_fd)
            finally:
                os._exit(0)
        os.close(write_fd)
        time.sleep(rng.uniform(0, longest))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        finished = len(os.read(read_fd, 1 << 16))
        os.close(read_fd)
        last = current + finished  # the newest version a save reported done
        text = path.read_text(encoding="utf-8")
        version = _version(text)
        assert version in (last, last + 1), f"saved version {last} lost: the file holds {version}"
        assert text == text_of(version), "the file is one complete version"
        bak = (tmp_path / "s.toml.bak").read_text(encoding="utf-8")
        assert _version(bak) in (last - 1, last) and bak == text_of(_version(bak))
        left = temps(tmp_path)
        mid_write += bool(left)
        for name in left:  # a killed process cannot clean up; the next save does not need it to
            (tmp_path / name).unlink()
    return mid_write


def test_kill_9_during_saves_of_a_small_session_never_tears_or_loses_a_save(tmp_path, example):
    path = tmp_path / "s.toml"

    def write(n):  # the autosave path: a Session, dumped and written
        save_session(edited(example, f"save {n}"), path)

    def text_of(n):
        return dumps_session(edited(example, f"save {n}"))

    loads_session(text_of(0))
    assert _kill_saves(tmp_path, write, text_of, kills=200, seed=11, longest=0.06) > 0, "no kill landed mid-save"


def test_kill_9_during_saves_of_a_5000_task_session_never_tears_or_loses_a_save(tmp_path, example):
    template = big_text(edited(example, "save 0"), 5000 - len(example.tasks))
    assert len(loads_session(template).tasks) == 5000
    path = tmp_path / "s.toml"

    def text_of(n):  # the dump is done once: the kills land in the write, where they matter
        return template.replace('title = "save 0"', f'title = "save {n}"', 1)

    def write(n):
        write_atomic(path, text_of(n))

    assert _kill_saves(tmp_path, write, text_of, kills=200, seed=12, longest=0.08) > 0, "no kill landed mid-save"


def test_save_error_reads_path_and_reason(tmp_path, example):
    missing = tmp_path / "no-such-folder" / "s.toml"
    with pytest.raises(SaveError) as err:
        save_session(example, missing)
    assert str(err.value).startswith(f"{missing}: ")
    assert "No such file or directory" in str(err.value)
    assert not missing.parent.exists()


def test_a_read_only_filesystem_is_named_as_the_reason(small_disk, example):
    path = small_disk / "s.toml"
    save_session(example, path)
    subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
    with pytest.raises(SaveError) as err:
        save_session(edited(example, "nowhere to go"), path)
    assert str(err.value) == f"{path}: cannot write in {small_disk}: Read-only file system"
    assert load_session(path) == example
