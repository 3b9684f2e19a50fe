"""Input files are read with the caps a URL's answer has: a 1 GB file (sparse here, made at
once with truncate) is refused in a moment with `FILE: over 32 MB`, a 30 MB line of a
metrics page is refused by its line number, and a pipe of one endless line is summarized
in bounded memory."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import IO

import pytest

from cockpit.model.session import Session
from cockpit.store.toml_store import load_session, save_session


def cockpit(*args: str | Path, stdin: int | IO[bytes] = subprocess.DEVNULL) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, timeout=60,
                          stdin=stdin)


@pytest.fixture(scope="module")
def huge(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("big") / "one-line.txt"
    with path.open("wb") as f:
        f.truncate(1 << 30)  # 1 GB of one line (a hole: no disk, no time)
        f.seek((1 << 30) - 2)
        f.write(b"x\n")
    return path


@pytest.mark.parametrize("command", [("metrics", "{f}"), ("topo", "{f}"), ("bench", "import", "{s}", "{f}")],
                         ids=["metrics", "topo", "bench import"])
def test_a_file_over_the_cap_is_refused_at_once(huge, tmp_path, command):
    session = tmp_path / "s.toml"
    save_session(Session(title="x"), session)
    before = session.read_bytes()
    started = time.monotonic()
    done = cockpit(*(a.format(f=huge, s=session) for a in command))
    assert time.monotonic() - started < 20
    assert done.returncode == 1
    assert f"{huge}: over 32 MB".encode() in done.stderr, done.stderr[-500:]
    assert session.read_bytes() == before and not load_session(session).benchmarks


def test_a_pipe_over_the_cap_is_refused_too(huge):
    with huge.open("rb") as stream:
        done = cockpit("metrics", "-", stdin=stream)
    assert done.returncode == 1 and b"-: over 32 MB" in done.stderr


def test_an_endless_metrics_line_is_refused_by_its_line(tmp_path):
    page = tmp_path / "metrics.txt"
    page.write_bytes(b"# HELP sglang:num_running_reqs running\nsglang:num_running_reqs 1\n" + b"x" * (30 << 20) + b"\n")
    started = time.monotonic()
    done = cockpit("metrics", page)
    assert time.monotonic() - started < 20
    assert done.returncode == 1
    assert b"line 3 is over 1 MB" in done.stderr and len(done.stderr) < 2000, done.stderr[:500]


def test_parse_log_of_a_pipe_of_one_endless_line_stays_small(huge):
    # through a pipe (a regular file is mapped, and its pages count in the RSS)
    script = ("import resource, subprocess, sys; "
              "cat = subprocess.Popen(['cat', sys.argv[1]], stdout=subprocess.PIPE); "
              "p = subprocess.run([sys.executable, '-m', 'cockpit', 'parse-log', '-'], stdin=cat.stdout, "
              "capture_output=True); cat.wait(); "
              "print(p.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    done = subprocess.run([sys.executable, "-c", script, str(huge)], capture_output=True, timeout=120)
    rc, max_rss_kb = map(int, done.stdout.split())
    assert rc == 0
    assert max_rss_kb < 400_000, f"{max_rss_kb} kB for a 1 GB line"
