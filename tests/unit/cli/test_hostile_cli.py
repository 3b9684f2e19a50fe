"""Hostile session and host text through every CLI text output: the bytes written hold no
ESC, C1, BEL, bidi or zero-width character, and every vector shows as its placeholder.

One session holds all the vectors in every text field (a CLI line is never wrapped, so
each vector can be found in it); each command runs as the person would run it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hostile import NAMES, RAW_BYTES, VECTORS, check_bytes, hostile_session

from cockpit.cli.watch.gpu_cmds import _print_tick
from cockpit.model.session import Host, Session
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.gpu.sample import GpuSample
from cockpit.store.toml_store import save_session

ALL = " ¦ ".join(VECTORS.values())


def cockpit(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, timeout=120, cwd=cwd)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "s.toml"
    session = hostile_session(ALL)
    session.packages[0].host = None  # checked on this machine by `drift`
    save_session(session, path)
    return path


def _check_all(data: bytes, surface: str, *, visible: bool = True) -> None:
    for name in NAMES:
        check_bytes(data, name, surface, visible=visible)


@pytest.mark.parametrize(("surface", "args"), [
    ("cli timeline", ("timeline", "{s}")),
    ("cli diff", ("diff", "{s}", "l1", "l2")),
    ("cli export md", ("export", "{s}", "--format", "md")),
    ("cli drift", ("drift", "{s}", "--python", sys.executable)),
])
def test_text_outputs_are_inert(hostile, surface, args):
    done = cockpit(*(a.format(s=hostile) for a in args))
    assert done.returncode in (0, 1), done.stderr  # drift: 1, the hostile package is missing
    _check_all(done.stdout, surface)
    _check_all(done.stderr, surface + " (stderr)", visible=False)


def test_json_export_escapes_what_json_leaves_raw(hostile):
    done = cockpit("export", hostile, "--format", "json")
    assert done.returncode == 0
    assert RAW_BYTES.search(done.stdout) is None
    data = json.loads(done.stdout)
    assert data["tasks"][0]["title"] == f"task {ALL}", "the same value, escaped by JSON rules"
    for name in NAMES:
        check_bytes(done.stdout, name, "cli export json", visible=False)
    for command in (("timeline", hostile, "--json"), ("diff", hostile, "l1", "l2", "--json")):
        out = cockpit(*command).stdout
        assert RAW_BYTES.search(out) is None and json.loads(out)
        for name in NAMES:
            check_bytes(out, name, f"cli {command[0]} --json", visible=False)


def test_add_prints_an_id_and_errors_quote_inert(hostile, tmp_path):
    path = tmp_path / "s.toml"
    path.write_bytes(hostile.read_bytes())
    done = cockpit("add", "task", path, ALL)
    assert (done.returncode, done.stdout.strip()) == (0, b"t3")
    _check_all(done.stdout, "cli add", visible=False)  # the id only
    with_hosts = tmp_path / "hosts.toml"
    save_session(Session(title="x", hosts=[Host(name="gpu1")]), with_hosts)
    bad = cockpit("add", "package", with_hosts, "torch", "--version", "1", "--host", ALL)
    assert bad.returncode == 1 and b"names unknown host" in bad.stderr
    _check_all(bad.stderr, "cli add (error)")


def test_check_quotes_a_broken_file_inert(tmp_path):
    path = tmp_path / "broken.toml"
    key = json.dumps(ALL)  # a TOML basic string: the same escapes as JSON
    path.write_text(f'schema_version = 1\ntitle = "x"\n{key} = 1\n', encoding="utf-8")
    done = cockpit("check", path)
    assert done.returncode == 1
    _check_all(done.stderr, "cli check (error)")
    good = cockpit("check", tmp_path.parent / path.parent.name / "missing.toml")
    assert RAW_BYTES.search(good.stderr) is None


TOPO = """\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID
GPU0\t X \tNV18\tPIX\t0-31\t0\t\tN/A
GPU1\tNV18\t X \tSYS\t0-31\t0\t\tN/A
NIC0\tPIX\tSYS\t X \t\t\t

Legend:

  X    = Self
  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes
  NV#  = Connection traversing a bonded set of # NVLinks {name}

NIC Legend:

  NIC0: mlx5_0
"""


def test_topo_text_is_inert(tmp_path):
    path = tmp_path / "topo.txt"
    path.write_text(TOPO.format(name=ALL), encoding="utf-8")
    done = cockpit("topo", path)
    assert done.returncode == 0, done.stderr
    _check_all(done.stdout, "cli topo")


def test_log_commands_are_inert(tmp_path):
    log = tmp_path / "server.log"
    log.write_text("".join(f"[2026-11-28 21:00:0{i % 10}] line {v}\n" for i, v in enumerate(VECTORS.values())),
                   encoding="utf-8")
    tail = cockpit("tail", log, "--from-start", "--stop-after-bytes", str(log.stat().st_size))
    assert tail.returncode == 0, tail.stderr
    _check_all(tail.stdout, "cli tail")
    summary = cockpit("parse-log", log)
    assert summary.returncode == 0, summary.stderr
    _check_all(summary.stdout, "cli parse-log", visible=False)


def test_gpus_text_is_inert(capsys):
    class Args:
        json = False

    _print_tick(GpuSamplesTaken(f"gpu1 {ALL}", (GpuSample(index=0, name=ALL, power_w=300, power_limit_w=600),), 1.0),
                Args())  # type: ignore[arg-type]
    out = capsys.readouterr().out.encode()
    # The name column is cut at 24 characters: the host line carries every vector.
    _check_all(out, "cli gpus")
