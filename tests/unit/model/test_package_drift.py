"""Package and driver drift: the probe's answer, the comparison, and `cockpit drift` run
against this machine's real interpreter (the SSH path is in tests/ssh/test_drift_remote.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import metadata

import pytest

from cockpit.model.package_drift import compare, drifted
from cockpit.model.session import LaunchProfile, Package, Session
from cockpit.parse.version_probe import ProbeError, kind_of, parse_probe_output, probe_command
from cockpit.sources.server.drift_check import default_python
from cockpit.store.toml_store import save_session


@pytest.mark.parametrize("name,kind", [
    ("NVIDIA driver", "driver"), ("driver", "driver"), ("nvidia-driver", "driver"), ("CUDA toolkit", "cuda"),
    ("cuda", "cuda"), ("nvcc", "cuda"), ("torch", "pip"), ("sgl_kernel", "pip"), ("cuda-python", "pip"),
])
def test_where_a_version_comes_from(name: str, kind: str) -> None:
    assert kind_of(name) == kind


def test_the_marked_line_is_found_among_banner_lines() -> None:
    out = ("Welcome to gpu1\n" + 'COCKPIT-PROBE {"python": "3.12.3", "packages": {"torch": "2.9.1", "x": null}, '
           '"driver": "590.48.01", "cuda": "12.8"}\n')
    result = parse_probe_output(out)
    assert (result.python, result.version_of("torch"), result.version_of("x")) == ("3.12.3", "2.9.1", None)
    assert result.version_of("NVIDIA driver") == "590.48.01" and result.version_of("CUDA toolkit") == "12.8"
    with pytest.raises(ProbeError, match="python3: not found"):
        parse_probe_output("", "sh: 1: python3: not found\n", 127)
    with pytest.raises(ProbeError, match="unreadable"):
        parse_probe_output("COCKPIT-PROBE {not json")


def test_a_hostile_host_cannot_drive_the_terminal() -> None:
    out = "COCKPIT-PROBE " + json.dumps({"python": "3\x1b]0;owned\x07", "packages": {"torch": "2.9\x1b[2J"},
                                          "driver": "\x1b]52;c;Zm9v\x07", "cuda": None}) + "\n"
    result = parse_probe_output(out)
    for text in (result.python, result.version_of("torch"), result.version_of("NVIDIA driver")):
        assert "\x1b" not in text and "\x07" not in text
    assert result.version_of("torch") == "2.9␛[2J"
    with pytest.raises(ProbeError) as caught:
        parse_probe_output("", "bad \x1b[31mthing\n", 1)
    assert "\x1b" not in str(caught.value)


def test_comparison_statuses() -> None:
    p = Package(id="p1", name="torch", version="2.9.1+cu128")
    d = Package(id="p2", name="NVIDIA driver", version="590.48.01")
    rows = [compare(p, "local", "2.9.1+cu128"), compare(d, "gpu1", None, "driver")]
    assert [r.status for r in rows] == ["same", "unknown"] and not drifted(rows)
    assert compare(p, "local", "2.10.0").status == "changed" and compare(p, "local", None).status == "missing"
    assert drifted([compare(p, "local", None)])


def test_the_interpreter_comes_from_the_working_profile() -> None:
    def session(command: str) -> Session:
        return Session(launch=[LaunchProfile(id="l1", name="a", command=command, status="working")])
    assert default_python(session("CUDA_VISIBLE_DEVICES=0 /opt/venv/bin/python3 -m sglang.launch_server --tp 8")) \
        == "/opt/venv/bin/python3"
    assert default_python(session("sglang serve --tp 8")) == "python3"
    assert default_python(Session()) == "python3"


def test_the_probe_command_asks_only_what_is_recorded() -> None:
    spec = json.loads(__import__("shlex").split(probe_command("py", ["torch", "CUDA toolkit"]))[-1])
    assert spec == {"pip": ["torch"], "driver": False, "cuda": True}


def _drift(path, *args):
    return subprocess.run([sys.executable, "-m", "cockpit", "drift", str(path), "--python", sys.executable, *args],
                          capture_output=True, text=True, timeout=120)


def test_drift_on_this_machine(tmp_path) -> None:
    """Real probe, real interpreter: pytest's version is the one installed, the others are not."""
    path = tmp_path / "s.toml"
    save_session(Session(packages=[
        Package(id="p1", name="pytest", version=metadata.version("pytest")),
        Package(id="p2", name="hypothesis", version="0.0.1"),
        Package(id="p3", name="no-such-dist-for-cockpit", version="1.0"),
    ]), path)
    done = _drift(path)
    assert done.returncode == 1, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "drift: 1 changed, 1 missing, 1 same"
    assert lines[1].startswith(f"  checked on local: {sys.executable} (python 3.")
    row = {line.split()[0]: line.split()[-1] for line in lines[3:] if line.startswith("p")}
    assert row == {"p1": "same", "p2": "changed", "p3": "missing"}
    out = json.loads(_drift(path, "--json").stdout)
    assert [(r["id"], r["now"], r["status"]) for r in out["rows"]] == [
        ("p1", metadata.version("pytest"), "same"), ("p2", metadata.version("hypothesis"), "changed"),
        ("p3", None, "missing")]


def test_an_unreachable_host_exits_2_and_a_missing_python_says_so(tmp_path) -> None:
    path = tmp_path / "s.toml"
    save_session(Session(packages=[Package(id="p1", name="pytest", version="1")]), path)
    done = _drift(path, "--host", "nosuchhost.invalid")
    assert done.returncode == 2 and "nosuchhost.invalid: cannot check: " in done.stdout
    assert "unknown (the host could not be checked)" in done.stdout
    done = subprocess.run([sys.executable, "-m", "cockpit", "drift", str(path), "--python", "/nonexistent/python"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and "/nonexistent/python" in done.stdout


def test_record_takes_the_versions_read_now(tmp_path) -> None:
    from cockpit.store.toml_store import load_session

    path = tmp_path / "s.toml"
    save_session(Session(packages=[
        Package(id="p1", name="hypothesis", version="0.0.1"),
        Package(id="p2", name="no-such-dist-for-cockpit", version="1.0")]), path)
    done = _drift(path, "--record")
    assert done.returncode == 0, done.stderr
    assert f"recorded: p1 hypothesis {metadata.version('hypothesis')}" in done.stdout
    session = load_session(path)
    assert [p.version for p in session.packages] == [metadata.version("hypothesis"), "1.0"]  # missing: kept
    assert session.packages[0].captured and session.journal[-1].kind == "package.edited"
    assert _drift(path).returncode == 1  # the missing one still drifts
