"""A file where a HOST is expected (`cockpit gpus x.csv`, `metrics --via`) is said in one line with what to use
instead, not looked up in DNS and retried for ever; a host name that does not resolve is one
line within a bounded time, streaming or not. `.invalid` never resolves (RFC 2606)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paths import REPO

HINT = "gpus samples live GPUs (this machine, or HOST over SSH); for saved nvidia-smi output: " \
       "cockpit diagnose SESSION --gpus "


def cockpit(cwd: Path, *argv: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = dict(os.environ, PYTHONPATH=str(REPO), SSH_AUTH_SOCK="")
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, cwd=cwd,
                          timeout=120, stdin=subprocess.DEVNULL, env=env)
    return done, time.monotonic() - start


@pytest.mark.parametrize("spec", ["x.csv", "out/gpus.txt", "./box", "~/nvsmi.log"])
def test_a_path_that_is_not_there_is_named_as_a_file_at_once(tmp_path, spec):
    done, took = cockpit(tmp_path, "gpus", spec)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"cockpit gpus: {spec!r} looks like a file, not a host; {HINT}{spec}\n"
    assert took < 30  # no DNS, no retry (a start of python is seconds at most, even loaded)


def test_an_existing_file_is_said_to_be_one(tmp_path):
    (tmp_path / "nvsmi.csv").write_text("index, name\n0, NVIDIA H100\n")
    done, _ = cockpit(tmp_path, "gpus", "--once", "nvsmi.csv")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"cockpit gpus: 'nvsmi.csv' is a file; {HINT}nvsmi.csv\n"


def test_a_bare_word_that_is_a_file_and_no_host_is_said_to_be_a_file(tmp_path):
    # a bare word may be an ssh_config alias, so it is tried as a host first; it does not resolve
    (tmp_path / "saved-nvsmi").write_text("index, name\n")
    done, _ = cockpit(tmp_path, "gpus", "saved-nvsmi", "--timeout", "20")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == f"cockpit gpus: 'saved-nvsmi' is a file; {HINT}saved-nvsmi\n"


@pytest.mark.parametrize("argv", [("gpus",), ("gpus", "--once"), ("topo",)], ids=["gpus-stream", "gpus-once", "topo"])
def test_a_host_that_does_not_resolve_is_one_line_in_bounded_time(tmp_path, argv):
    done, took = cockpit(tmp_path, *argv, "no-such-host.invalid", "--timeout", "20")
    assert (done.returncode, done.stdout) == (1, "")
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cockpit: no-such-host.invalid: cannot resolve host name ("), \
        done.stderr
    assert "retrying" not in done.stderr
    assert took < 60


def test_an_ssh_url_is_a_host_not_a_path(tmp_path):
    done, _ = cockpit(tmp_path, "gpus", "--once", "ssh://no-such-host.invalid", "--timeout", "20")
    assert done.returncode == 1
    assert done.stderr.startswith("cockpit: no-such-host.invalid: cannot resolve host name ("), done.stderr


def test_topo_names_a_missing_file_by_its_suffix(tmp_path):
    done, _ = cockpit(tmp_path, "topo", "topo.csv")
    assert (done.returncode, done.stderr) == (1, "cockpit: topo.csv: no such file\n")


def test_metrics_via_a_file_is_one_line(tmp_path):
    done, _ = cockpit(tmp_path, "metrics", "http://127.0.0.1:1/metrics", "--via", "hosts.txt")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("cockpit: --via 'hosts.txt' looks like a file, not a host; "
                           "--via names the SSH host to read URL through\n")


def test_metrics_via_a_host_that_does_not_resolve_is_one_line_in_bounded_time(tmp_path):
    done, took = cockpit(tmp_path, "metrics", "http://127.0.0.1:1/metrics", "--via", "no-such-host.invalid")
    assert (done.returncode, done.stdout) == (1, "")
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("cockpit: no-such-host.invalid: cannot resolve host name ("), \
        done.stderr
    assert took < 60
