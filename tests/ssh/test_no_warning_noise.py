"""An SSH command's failure is the one line it promises, whatever warnings the installed
asyncssh and cryptography raise on import (asyncssh 2.24 with cryptography 46+ printed ten
lines of `CryptographyDeprecationWarning` first). PYTHONWARNINGS=default is how a person with
warnings turned on runs it; the real sshd answers with a host key the file does not hold.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import asyncssh
import pytest

from paths import REPO
from sshd_fixture import ALIAS

WARNINGS = ["default", "always", "error"]


def cockpit(*argv: str, warnings: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SSH_AUTH_SOCK": "", "PYTHONWARNINGS": warnings, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=120)


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again on leaving: nothing listens there


@pytest.mark.parametrize("warnings", WARNINGS)
def test_a_refused_host_is_one_line(warnings):
    port = closed_port()
    done = cockpit("gpus", "--once", f"127.0.0.1:{port}", "--timeout", "20", warnings=warnings)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == f"cockpit: 127.0.0.1:{port}: connection refused (is sshd running? right port?)\n"


def test_a_changed_host_key_is_one_line(sshd, tmp_path):
    other = asyncssh.generate_private_key("ssh-ed25519").export_public_key().decode().strip()
    known = tmp_path / "known_hosts"
    known.write_text(f"[{sshd.host}]:{sshd.port} {other}\n")
    done = cockpit("gpus", "--once", ALIAS, "--timeout", "20", "--known-hosts", str(known),
                   "--ssh-config", str(sshd.ssh_config), warnings="default")
    assert (done.returncode, done.stdout) == (1, ""), done.stderr
    lines = done.stderr.splitlines()
    said = f"cockpit: Host key for [{sshd.host}]:{sshd.port} has CHANGED: it does not match {known}. "
    assert len(lines) == 1 and lines[0].startswith(said), done.stderr


QUIETED = """
import warnings
from cockpit.ground.quiet_warnings import quiet_known_warnings
class CryptographyDeprecationWarning(UserWarning): pass
quiet_known_warnings()
for module, text in [("asyncssh.crypto.misc", "DSA is deprecated and support will be removed"),
                     ("asyncssh.crypto.cipher", "TripleDES has been moved to cryptography.hazmat.decrepit"),
                     ("asyncssh", "Blowfish has been moved"),
                     ("cockpit.cli", "DSA is deprecated"),
                     ("asyncssh.connection", "a warning of another kind")]:
    warnings.warn_explicit(text, CryptographyDeprecationWarning, module.replace(".", "/") + ".py", 1, module=module)
"""


def test_only_the_known_deprecations_are_quieted():
    """The filter itself, whatever versions are installed: asyncssh's use of a deprecated
    cryptography name is dropped; the same words from cockpit, or another warning, are shown."""
    env = {**os.environ, "PYTHONWARNINGS": "default", "PYTHONPATH": str(REPO)}
    done = subprocess.run([sys.executable, "-c", QUIETED], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    shown = [ln for ln in done.stderr.splitlines() if "Warning" in ln]
    assert shown == ["cockpit/cli.py:1: CryptographyDeprecationWarning: DSA is deprecated",
                     "asyncssh/connection.py:1: CryptographyDeprecationWarning: a warning of another kind"], done.stderr
