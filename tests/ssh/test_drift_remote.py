"""`cockpit drift` on a host over SSH (the real loopback sshd of tests/sshd_fixture.py).

STAND-INS, NOT THE REAL TOOLS: `nvidia-smi` and `nvcc` in the fixture's bin_dir are two-line
scripts that print a driver version and an nvcc banner (there is no GPU or CUDA here), and
`server-python` runs the machine's /usr/bin/python3 with a directory holding one made-up
distribution (`cockpit-fake-server-pkg` 1.2.3) on its path, as a server venv would. The
probe itself, python's importlib.metadata, the SSH connection and host key check are real.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.model.session import Host, Package, Session
from cockpit.store.toml_store import save_session

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server_tools(sshd):
    site = sshd.make_dir("drift-site")
    dist = site / "cockpit_fake_server_pkg-1.2.3.dist-info"
    dist.mkdir(exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: cockpit-fake-server-pkg\nVersion: 1.2.3\n")
    os.chmod(dist, 0o755)
    os.chmod(dist / "METADATA", 0o644)
    tools = {
        "nvidia-smi": "#!/bin/sh\n# STAND-IN for cockpit's drift test\necho 590.48.01\necho 590.48.01\n",
        "nvcc": "#!/bin/sh\n# STAND-IN for cockpit's drift test\necho 'Cuda compilation tools, release 12.9, V12.9.41'\n",
        "server-python": f"#!/bin/sh\n# STAND-IN server venv\nPYTHONPATH={site} exec /usr/bin/python3 \"$@\"\n",
    }
    for name, text in tools.items():
        (sshd.bin_dir / name).write_text(text)
        os.chmod(sshd.bin_dir / name, 0o755)
    yield
    for name in tools:
        (sshd.bin_dir / name).unlink(missing_ok=True)


def test_drift_over_ssh_checks_each_package_on_its_host(sshd, server_tools, tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(hosts=[Host(name="gpu1", ssh="cockpit-loop")], packages=[
        Package(id="p1", name="cockpit-fake-server-pkg", version="1.2.3", host="gpu1"),
        Package(id="p2", name="NVIDIA driver", version="590.48.01", host="gpu1"),
        Package(id="p3", name="CUDA toolkit", version="12.8", host="gpu1"),
        Package(id="p4", name="torch", version="2.9.1", host="gpu1"),
    ]), path)
    done = subprocess.run(
        [sys.executable, "-m", "cockpit", "drift", str(path), "--python", "server-python", "--json",
         "--ssh-config", sshd.ssh_config],
        capture_output=True, text=True, cwd=REPO, timeout=120, env={**os.environ, "SSH_AUTH_SOCK": ""})
    assert done.returncode == 1, done.stderr + done.stdout
    out = json.loads(done.stdout)
    assert out["checked"][0].startswith("gpu1: server-python (python 3.")
    assert [(r["id"], r["host"], r["now"], r["status"]) for r in out["rows"]] == [
        ("p1", "gpu1", "1.2.3", "same"), ("p2", "gpu1", "590.48.01", "same"),
        ("p3", "gpu1", "12.9", "changed"), ("p4", "gpu1", None, "missing")]
