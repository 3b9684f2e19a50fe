"""A real OpenSSH server on loopback for the SSH tests (toolchain notes, section 4, Recipe B).

Use it by naming the `sshd` fixture (session scoped; registered in conftest.py):

    async def test_x(sshd):
        async with sshd.connect() as conn: ...          # hermetic asyncssh connection
        target = sshd.target()                          # an SshTarget for cockpit's own pool
        d = sshd.make_dir("logs")                       # a dir the login user can read
        sshd.kill_all(); sshd.start()                   # "the server died" and came back
        (sshd.bin_dir / "nvidia-smi").write_text(...)   # first on the remote PATH

Logins use a dedicated user with /bin/sh as shell (`cockpit-test`): root's ~/.bashrc on these
machines runs `pyenv init`, which made every remote command slow (toolchain notes, addendum).
Its files therefore live under a world-readable dir in /tmp, not in pytest's 0700 tmp_path.
Nothing is skipped silently: a missing sshd or a non-root run fails with the reason.
"""

from __future__ import annotations

import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

import pytest

from waits import PATIENCE_S

SSHD = "/usr/sbin/sshd"  # sshd re-execs itself and so needs an absolute path
TEST_USER = "cockpit-test"
ALIAS = "cockpit-loop"  # the Host alias in the fixture's ssh_config
JUMP_ALIAS = "cockpit-jump"  # an alias that reaches ALIAS through ProxyJump (same sshd)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_test_user(name: str = TEST_USER) -> str:
    """Create the login user once. `-p '*'`: a locked account is refused with UsePAM no."""
    try:
        pwd.getpwnam(name)
        return name
    except KeyError:
        pass
    res = subprocess.run(["useradd", "-m", "-s", "/bin/sh", "-p", "*", name], capture_output=True, text=True)
    try:  # another test session may have created it at the same moment
        pwd.getpwnam(name)
    except KeyError:
        raise RuntimeError(f"useradd {name} failed: {res.stderr.strip()}") from None
    return name


def _write(path: Path, text: str | bytes, mode: int = 0o644) -> None:
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    os.chmod(path, mode)


STANDIN_SOURCE = Path(__file__).resolve().parents[1] / "cockpit" / "sandbox"  # the simulators


def _readable_standin(target: Path) -> Path:
    """A copy of cockpit/sandbox/ (the simulators) the login user can read: the checkout may sit in a 0700 home
    (root's), where that user cannot reach the stand-in server it is asked to run."""
    shutil.copytree(STANDIN_SOURCE, target, ignore=shutil.ignore_patterns("__pycache__"))
    for folder, _, files in os.walk(target):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return target


class LoopbackSshd:
    """One sshd -D on 127.0.0.1:<free port> with its own keys, known_hosts and ssh_config."""

    def __init__(self, d: Path | None = None, *, username: str | None = None) -> None:
        import asyncssh  # the fixture's keys; imported here so importing this module stays cheap

        self.dir = Path(d) if d else Path(tempfile.mkdtemp(prefix="cockpit-sshd-"))
        os.chmod(self.dir, 0o755)  # the login user reads authorized_keys and the test files
        self.host, self.port = "127.0.0.1", _free_port()
        self.username = username or ensure_test_user()
        self.bin_dir = self.dir / "bin"
        self.bin_dir.mkdir(mode=0o755, exist_ok=True)
        os.chmod(self.bin_dir, 0o755)
        self.host_key_obj = asyncssh.generate_private_key("ssh-ed25519")
        ck = asyncssh.generate_private_key("ssh-ed25519")
        self.host_key_obj.write_private_key(str(self.dir / "host_key"))
        os.chmod(self.dir / "host_key", 0o600)
        ck.write_private_key(str(self.dir / "client_key"))
        os.chmod(self.dir / "client_key", 0o600)  # ssh and ssh-add refuse a readable key
        _write(self.dir / "client_key.pub", ck.export_public_key())
        _write(self.dir / "authorized_keys", ck.export_public_key())
        self.host_key_line = f"[{self.host}]:{self.port} {self.host_key_obj.export_public_key().decode().strip()}\n"
        _write(self.dir / "known_hosts", self.host_key_line)
        self.standin_dir = _readable_standin(self.dir / "standin")
        self.client_key = str(self.dir / "client_key")
        self.known_hosts = str(self.dir / "known_hosts")
        self.ssh_config = str(self.dir / "ssh_config")
        _write(
            self.dir / "ssh_config",
            f"Host {ALIAS}\n  HostName {self.host}\n  Port {self.port}\n  User {self.username}\n"
            f"  IdentityFile {self.client_key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {self.known_hosts}\n"
            f"  BatchMode yes\n"
            f"Host {JUMP_ALIAS}\n  HostName {self.host}\n  Port {self.port}\n  User {self.username}\n"
            f"  IdentityFile {self.client_key}\n  IdentitiesOnly yes\n  UserKnownHostsFile {self.known_hosts}\n"
            f"  BatchMode yes\n  ProxyJump {ALIAS}\n",
        )
        d = self.dir
        _write(
            d / "sshd_config",
            f"ListenAddress 127.0.0.1\nPort {self.port}\nHostKey {d}/host_key\nPidFile {d}/sshd.pid\n"
            f"AuthorizedKeysFile {d}/authorized_keys\nStrictModes no\nPubkeyAuthentication yes\n"
            "PasswordAuthentication no\nKbdInteractiveAuthentication no\n"
            "PermitRootLogin prohibit-password\nUsePAM no\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\n"
            "AllowTcpForwarding yes\nMaxStartups 100\nMaxSessions 50\n"
            # stand-in tools (nvidia-smi, ...) in bin_dir shadow the real ones for remote commands
            f"SetEnv PATH={self.bin_dir}:/usr/local/bin:/usr/bin:/bin\n",
        )
        self.proc: subprocess.Popen | None = None
        self._log: BinaryIO | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # privilege separation dir
        self._log = open(self.dir / "sshd.log", "ab")
        self.proc = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(self.dir / "sshd_config")],
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        deadline = time.monotonic() + PATIENCE_S
        while True:
            if self.proc.poll() is not None:
                self._log.close()
                raise RuntimeError(f"sshd exited {self.proc.returncode}; see {self.dir}/sshd.log")
            try:
                with socket.create_connection((self.host, self.port), timeout=0.5) as s:
                    if s.recv(8).startswith(b"SSH-"):
                        return
            except OSError:
                pass
            if time.monotonic() > deadline:
                self.kill_all()
                raise TimeoutError(f"sshd did not answer on port {self.port}")
            time.sleep(0.02)

    def sshd_pids(self) -> list[int]:
        """The per-connection sshd processes under the listener, at any depth.

        They call setsid(), so a killpg on the listener's group misses them; scan /proc instead.
        Only processes named sshd: the user's commands are left to notice the closed channel.
        """
        if not self.proc:
            return []
        parents: dict[int, int] = {}
        names: dict[int, str] = {}
        for st in Path("/proc").glob("[0-9]*/stat"):
            try:
                text = st.read_text()
                head, rest = text.rsplit(")", 1)
                pid = int(st.parent.name)
                parents[pid] = int(rest.split()[1])
                names[pid] = head.split("(", 1)[1]
            except (OSError, ValueError, IndexError):
                continue
        found, frontier = list[int](), {self.proc.pid}
        while frontier:
            kids = {p for p, pp in parents.items() if pp in frontier and names.get(p) == "sshd"}
            kids -= set(found)
            found.extend(sorted(kids))
            frontier = kids
        return found

    # kept for the notes' name
    children = sshd_pids

    def kill_all(self, sig: int = signal.SIGTERM) -> None:
        """'The server died': every live session's sshd, then the listener."""
        if self.proc and self.proc.poll() is None:
            for pid in self.sshd_pids():
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            self.proc.send_signal(sig)
        if self.proc:
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        if self._log and not self._log.closed:
            self._log.close()

    def restart(self) -> None:
        self.kill_all()
        self.start()

    def close(self) -> None:
        self.kill_all()
        shutil.rmtree(self.dir, ignore_errors=True)

    # -- helpers for tests -------------------------------------------------------------------
    def standin(self, name: str = "sglang_server.py") -> Path:
        """A stand-in script (cockpit/sandbox/NAME) at a path the login user can read."""
        return self.standin_dir / name

    def make_dir(self, name: str) -> Path:
        """A fresh dir the login user can read (tests write there as root)."""
        p = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=self.dir))
        os.chmod(p, 0o755)
        return p

    def connect(self, **kw):
        import asyncssh

        return asyncssh.connect(
            self.host, port=self.port, username=self.username, client_keys=[self.client_key],
            known_hosts=self.known_hosts, config=None, agent_path=None, **kw,
        )

    def target(self, **kw):
        """An SshTarget for cockpit's pool, explicit (no ssh_config)."""
        from cockpit.sources.transport.ssh_pool import SshTarget

        fields = dict(host=self.host, port=self.port, user=self.username, known_hosts=self.known_hosts,
                      client_keys=(self.client_key,), config=())
        fields.update(kw)
        return SshTarget(**fields)

    def alias_target(self, alias: str = ALIAS):
        """An SshTarget that names the ssh_config alias (host, port, user, key all from config)."""
        from cockpit.sources.transport.ssh_pool import SshTarget

        return SshTarget(host=alias, config=(self.ssh_config,))

    def ssh_argv(self, *cmd: str) -> list[str]:
        """argv for the OpenSSH client to the same server (benchmarks, cross-checks)."""
        return ["ssh", "-F", self.ssh_config, ALIAS, *cmd]

    def cockpit(self, *argv: str, timeout: float = 90) -> subprocess.CompletedProcess:
        """`cockpit ARGV --ssh-config <the fixture's>` as a user runs it (no agent); name ALIAS in argv."""
        env = {**os.environ, "SSH_AUTH_SOCK": ""}
        return subprocess.run(
            [sys.executable, "-m", "cockpit", *argv, "--ssh-config", self.ssh_config],
            capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], timeout=timeout, env=env,
        )


@pytest.fixture(scope="session")
def sshd():
    if not os.path.exists(SSHD):
        pytest.fail(f"{SSHD} is missing: apt-get install -y openssh-server (the SSH tests need a real sshd)")
    if os.geteuid() != 0:
        pytest.fail("the loopback sshd fixture needs root (it starts sshd and creates the login user)")
    s = LoopbackSshd()
    s.start()
    yield s
    s.close()
