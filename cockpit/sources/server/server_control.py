"""Start, stop, restart and find the SGLang server a launch profile runs, on its host.

A server is started DETACHED, so that it outlives cockpit and a dropped SSH link: in its own
session and process group (`setsid`), stdin from /dev/null, stdout and stderr appended to a
log file, its group id in a PID file. Per session and host there is one run folder
(`Host.run_dir`, else `~/.cockpit/runs`, then the session file's stem) holding
`<host>.pid`, `<host>.info` (fingerprint, profile, log path) and `<host>.exit` (the exit
status once the command ended by itself), and the per-run logs unless the host names its
own `log_path`.

Everything on the host is done by one small POSIX sh script fed to `sh -s` on stdin, through
the host's SSH connection (the shared SshPool) or, for a host without `ssh`, on this machine:
the same script either way. Profile fields never become shell syntax: the command is split
with `shlex.split` and every argv item, path and env value is quoted with `shlex.quote`.

Secrets: the env goes to the host inside that script, on the channel's stdin, as
`export NAME='value'` lines; the command line of every process is `sh -s` (nothing for `ps`
to show) and nothing is written to a file. Only the server's own environment holds the
values, and /proc/<pid>/environ is readable by its owner alone. (An env file made with
umask 077 would also work, but it exists on disk for a moment and must be removed on every
path; stdin needs no clean-up.)
"""

from __future__ import annotations

import asyncio
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from cockpit.ground.redact import redact_env, redact_text
from cockpit.ground.sanitize import sanitize
from cockpit.model.edit.lookup import by_id_or_name, known_records
from cockpit.model.launch_confirm import fingerprint
from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.sources.server.confirm_key import is_confirmed

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_pool import SshPool
    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = [
    "AlreadyRunning", "GpuCheck", "LaunchPlan", "LogChunk", "RunPlace", "ServerControl", "ServerControlError",
    "ServerStatus", "StartResult", "StopResult", "find_profile", "place_for_host", "places_of_session",
    "plan_launch",
]

LOCAL = "local"  # the place name of a profile that names no host
DEFAULT_RUN_DIR = "~/.cockpit/runs"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class ServerControlError(Exception):
    """A start, stop or status that could not be done (one readable line)."""


class AlreadyRunning(ServerControlError):
    """A server of this session already runs on the host; `status` says which."""

    def __init__(self, status: ServerStatus, session_label: str = "SESSION") -> None:
        what = f"profile {status.profile_id}" if status.profile_id else "a server"
        super().__init__(
            f"{status.host}: {what} of this session already runs (pid {status.pid}); stop it first "
            f"(cockpit stop {session_label} {status.host}), then start again")
        self.status = status


# --- where and what -------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class RunPlace:
    """Where a session's server runs on one host: the connection and the run folder."""

    host: str  # the session's host name, or "local" for a profile without host
    target: SshTarget | None  # None: this machine
    run_dir: str  # as the host sees it; may start with ~/
    log_path: str | None = None  # the host's own log_path, when set

    @property
    def pid_file(self) -> str:
        return f"{self.run_dir}/{self.host}.pid"

    @property
    def info_file(self) -> str:
        return f"{self.run_dir}/{self.host}.info"

    @property
    def exit_file(self) -> str:
        return f"{self.run_dir}/{self.host}.exit"

    @property
    def where(self) -> str:
        return f"{self.host} (this machine)" if self.target is None else f"{self.host} ({self.target.label})"


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """What `start` will run: shown to the person (redacted) before the first run."""

    profile_id: str
    profile_name: str
    place: RunPlace
    argv: tuple[str, ...]
    env: dict[str, str]
    log_path: str
    fingerprint: str
    needs_confirmation: bool

    def command_line(self) -> str:
        """The argv as one shell-quoted line, secrets masked (for display only)."""
        return redact_text(shlex.join(self.argv))

    def preview(self) -> str:
        """The exact command and env (secrets redacted), where it runs and where it logs."""
        lines = [f"profile {self.profile_id} ({self.profile_name}) on {self.place.where}",
                 f"command: {self.command_line()}"]
        shown = redact_env(self.env)
        lines += [f"env:     {name}={shlex.quote(value)}" for name, value in sorted(shown.items())] or ["env:     (none)"]
        lines.append(f"log:     {self.log_path}")
        return "\n".join(lines)


def find_profile(session: Session, ref: str) -> LaunchProfile:
    """A launch profile by id, else by exact name, else by a name that differs only in case."""
    named = by_id_or_name(session.launch, ref)
    if len(named) == 1:
        return named[0]
    known = known_records(session.launch)
    if named:
        raise ServerControlError(f"{ref!r} names {len(named)} launch profiles; use the id ({known})")
    raise ServerControlError(f"no launch profile {ref!r} (profiles: {known})")


def _target(host: Host, ssh_config: tuple[str, ...] | None, known_hosts: str | None) -> SshTarget:
    from cockpit.sources.transport.ssh_target import SshTarget, with_config

    assert host.ssh
    jump = SshTarget.parse(host.jump) if host.jump else None
    return with_config(SshTarget.parse(host.ssh, jump=jump), ssh_config, known_hosts)


def place_for_host(session: Session, session_path: str | Path, host_name: str | None, *,
                   ssh_config: tuple[str, ...] | None = None, known_hosts: str | None = None) -> RunPlace:
    """The run place of `host_name` (a session host; None or unknown: this machine)."""
    stem = Path(session_path).stem or "session"
    host = next((h for h in session.hosts if h.name == host_name), None)
    base = (host.run_dir if host and host.run_dir else DEFAULT_RUN_DIR).rstrip("/") or "/"
    target = _target(host, ssh_config, known_hosts) if host and host.ssh else None
    return RunPlace(host=host_name or LOCAL, target=target, run_dir=f"{base}/{stem}",
                    log_path=host.log_path if host else None)


def places_of_session(session: Session, session_path: str | Path, **kw: Any) -> list[RunPlace]:
    """Every place a server of the session may run: its hosts, and this machine when a
    profile names no host."""
    names: list[str | None] = [h.name for h in session.hosts]
    if any(p.host is None for p in session.launch) or not names:
        names.append(None)
    return [place_for_host(session, session_path, n, **kw) for n in names]


def plan_launch(session: Session, session_path: str | Path, profile_ref: str, *,
                ssh_config: tuple[str, ...] | None = None, known_hosts: str | None = None) -> LaunchPlan:
    """What starting `profile_ref` (an id or a name) would run, and where."""
    profile = find_profile(session, profile_ref)
    try:
        argv = tuple(shlex.split(profile.command))
    except ValueError as exc:  # an unbalanced quote: refuse rather than guess
        raise ServerControlError(f"profile {profile.id}: the command does not split into arguments ({exc})") from None
    if not argv:
        raise ServerControlError(f"profile {profile.id}: the command is empty")
    bad = [name for name in profile.env if not _ENV_NAME.match(name)]
    if bad:
        raise ServerControlError(f"profile {profile.id}: {bad[0]!r} is not an environment variable name")
    place = place_for_host(session, session_path, profile.host, ssh_config=ssh_config, known_hosts=known_hosts)
    log_path = place.log_path or f"{place.run_dir}/{profile.id}-{time.strftime('%Y%m%d-%H%M%S')}.log"
    return LaunchPlan(profile_id=profile.id, profile_name=profile.name, place=place, argv=argv,
                      env=dict(profile.env), log_path=log_path, fingerprint=fingerprint(profile),
                      needs_confirmation=not is_confirmed("launch", fingerprint(profile), profile.confirmed))


# --- results --------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class ServerStatus:
    host: str
    running: bool
    pid: int | None = None
    fingerprint: str | None = None
    profile_id: str | None = None
    log_path: str | None = None
    started: str | None = None
    exit_code: int | None = None  # set once the command ended by itself

    def attached_to(self, profile: LaunchProfile) -> bool:
        """Running, and started from this profile as it is now (same command fingerprint)."""
        return self.running and self.profile_id == profile.id and self.fingerprint == fingerprint(profile)


@dataclass(frozen=True, slots=True)
class GpuCheck:
    checked: bool
    others: tuple[str, ...] = ()  # `pid NAME (N MiB)` per process already holding GPU memory
    reason: str = ""  # why it could not check

    @property
    def warning(self) -> str | None:
        if not self.checked:
            return f"cannot check GPU memory in use: {self.reason}"
        if self.others:
            return "GPUs already hold memory of another process: " + ", ".join(self.others)
        return None


@dataclass(frozen=True, slots=True)
class StartResult:
    status: ServerStatus
    log_path: str
    log_offset: int  # bytes the log held before this start: the run's lines follow
    gpu: GpuCheck
    started_at: float = field(default_factory=time.monotonic)


@dataclass(frozen=True, slots=True)
class StopResult:
    host: str
    pid: int | None  # None: no server of the session was there
    signals: tuple[str, ...] = ()  # ("TERM",) or ("TERM", "KILL")
    left: tuple[int, ...] = ()  # processes of the group still there (empty: all gone)

    @property
    def clean(self) -> bool:
        return not self.left


@dataclass(frozen=True, slots=True)
class LogChunk:
    data: bytes
    offset: int  # where the next read starts
    running: bool
    exit_code: int | None
    truncated: bool = False  # the file shrank below the offset (rotated): read again from 0


# --- the scripts ----------------------------------------------------------------------------

def _q(path: str) -> str:
    """A path as one shell word; a leading ~/ becomes "$HOME"/ (quoted words never expand ~)."""
    if path == "~":
        return '"$HOME"'
    if path.startswith("~/"):
        return '"$HOME"/' + shlex.quote(path[2:])
    return shlex.quote(path)


def _files(place: RunPlace) -> str:
    return (f"D={_q(place.run_dir)}\nPIDF={_q(place.pid_file)}\nINFO={_q(place.info_file)}\n"
            f"EXITF={_q(place.exit_file)}\n")


# `alive PGID`: a process of the group that is not a zombie (an unreaped zombie runs nothing;
# where PID 1 does not reap, `kill -0` would see one for ever). Without ps: kill -0.
_ALIVE = r"""
alive() {
  if command -v ps >/dev/null 2>&1; then
    ps -eo pgid=,stat= 2>/dev/null | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { f = 1 } END { exit !f }'
  else
    kill -0 -"$1" 2>/dev/null
  fi
}
members() { ps -eo pid=,pgid=,stat= 2>/dev/null | awk -v g="$1" '$2 == g && $3 !~ /^Z/ { printf "%s ", $1 }'; }
readpid() {
  pid=""
  [ -f "$PIDF" ] && pid=$(cat "$PIDF" 2>/dev/null)
  case "$pid" in ''|*[!0-9]*) pid="" ;; esac
}
"""

_STATUS = r"""
readpid
if [ -n "$pid" ] && alive "$pid"; then echo "running $pid"; else echo "stopped $pid"; fi
[ -f "$EXITF" ] && echo "exit $(cat "$EXITF")"
[ -f "$INFO" ] && sed 's/^/info /' "$INFO"
exit 0
"""

# The server: `setsid` makes it a session and group leader; the small sh in front writes its
# own pid (= the group id) and, when the command ends by itself, its exit status. The sh's
# text is fixed; the command arrives as its positional parameters.
# Its own files are made with `set -C` (noclobber: O_EXCL), which never writes through a link
# planted in the run folder while the server ran; a planted link is left, the status unsaid.
_LEADER = ('p=$1; e=$2; m=$3; shift 3; set -C; echo $$ >"$p"; set +C; umask "$m"; "$@"; s=$?; umask 077; '
           'set -C; echo "$s" >"$e" 2>/dev/null; exit "$s"')

_START = r"""
readpid
if [ -n "$pid" ] && alive "$pid"; then echo "running $pid"; [ -f "$INFO" ] && sed 's/^/info /' "$INFO"; exit 3; fi
command -v setsid >/dev/null 2>&1 || { echo "error setsid is not installed on this host (util-linux)"; exit 5; }
if command -v nvidia-smi >/dev/null 2>&1; then
  out=$(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader,nounits 2>&1)
  echo "gpucheck $?"
  printf '%s\n' "$out" | sed '/^$/d; s/^/gpu /'
else
  echo "gpucheck none"
fi
rm -f "$PIDF" "$EXITF"
mkdir -p "$(dirname "$LOG")" || { echo "error cannot create the log folder"; exit 4; }
[ -e "$LOG" ] || : >"$LOG" || { echo "error cannot create the log file"; exit 4; }
echo "offset $(wc -c <"$LOG" | tr -d ' ')"
"""


# .info keys read back by `_parse_status` (the others are for people only)
_INFO_READ_BACK = ("profile", "log")


def _info_lines(info: dict[str, str]) -> list[str]:
    """`key=value` lines for the .info file, which people read (`cat`, `less`): every value
    made inert (a path or a command may hold OSC 0/52 escapes, a newline would forge a key).
    A value read back that `sanitize` changed also goes as `key%hex=` (its bytes), so the
    exact path is found again."""
    lines = []
    for key, value in info.items():
        shown = sanitize(value)
        lines.append(f"{key}={shown}")
        if shown != value and key in _INFO_READ_BACK:
            lines.append(f"{key}%hex={value.encode('utf-8', 'surrogateescape').hex()}")
    return lines


def _start_script(plan: LaunchPlan) -> str:
    p = plan.place
    info = {"fingerprint": plan.fingerprint, "profile": plan.profile_id, "log": plan.log_path,
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "command": plan.command_line()}
    # the original umask for the server itself: 077 is only for cockpit's own files
    parts = ["M=$(umask)", "umask 077", _files(p), f"LOG={_q(plan.log_path)}",
             'mkdir -p "$D" || { echo "error cannot create the run folder"; exit 4; }', _ALIVE, _START,
             'rm -f "$INFO.new"',
             # made new (noclobber: O_EXCL, never through a link), then appended to
             'set -C; : >"$INFO.new" || { echo "error cannot create $INFO.new"; exit 4; }; set +C']
    parts += [f"printf '%s\\n' {shlex.quote(line)} >>\"$INFO.new\"" for line in _info_lines(info)]
    parts.append('mv -f "$INFO.new" "$INFO"')
    parts += [f"export {name}={shlex.quote(value)}" for name, value in plan.env.items()]
    parts.append(f"setsid sh -c {shlex.quote(_LEADER)} cockpit-server \"$PIDF\" \"$EXITF\" \"$M\" "
                 f"{shlex.join(plan.argv)} </dev/null >>\"$LOG\" 2>&1 &")
    # wait (up to 5 s) for the leader's pid: the PID file is the proof that it started
    parts.append('i=0; while [ ! -s "$PIDF" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\n'
                 'readpid; [ -n "$pid" ] || { echo "error the server did not start"; exit 6; }\n'
                 'echo "started $pid"')
    return "\n".join(parts) + "\n"


def _stop_script(place: RunPlace, grace_s: float) -> str:
    ticks = max(1, int(grace_s * 10))
    return "\n".join([_files(place), _ALIVE, rf"""
readpid
if [ -z "$pid" ]; then echo "none"; exit 0; fi
echo "pid $pid"
if ! alive "$pid"; then rm -f "$PIDF"; echo "gone"; exit 0; fi
kill -TERM -"$pid" 2>/dev/null; echo "signal TERM"
i=0; while alive "$pid" && [ $i -lt {ticks} ]; do sleep 0.1; i=$((i+1)); done
if alive "$pid"; then
  kill -KILL -"$pid" 2>/dev/null; echo "signal KILL"
  i=0; while alive "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done
fi
if alive "$pid"; then echo "left $(members "$pid")"; exit 7; fi
rm -f "$PIDF"; echo "stopped"
"""])


def _read_script(place: RunPlace, log_path: str, offset: int, max_bytes: int) -> str:
    return "\n".join([_files(place), f"LOG={_q(log_path)}", _ALIVE, rf"""
readpid
if [ -n "$pid" ] && alive "$pid"; then r=1; else r=0; fi
e=""; [ -f "$EXITF" ] && e=$(cat "$EXITF")
size=$(wc -c <"$LOG" 2>/dev/null | tr -d ' '); size=${{size:-0}}
off={offset}
if [ "$size" -lt "$off" ]; then off=0; t=1; else t=0; fi
n=$((size - off)); [ $n -gt {max_bytes} ] && n={max_bytes}
printf 'head %s %s %s %s %s\n' "$r" "$off" "$n" "$t" "$e"
[ $n -gt 0 ] && tail -c +$((off + 1)) "$LOG" | head -c "$n"
exit 0
"""])


# --- running them ---------------------------------------------------------------------------

class ServerControl:
    """Runs the scripts on each place, through `pool` for hosts with `ssh`.

    Every method is a coroutine (the pool is asyncio); none needs Textual.
    """

    def __init__(self, pool: SshPool | None = None, *, timeout_s: float = 30.0) -> None:
        self.pool = pool
        self.timeout_s = timeout_s

    async def _sh(self, place: RunPlace, script: str, what: str, timeout_s: float | None = None) -> tuple[int, bytes]:
        """(exit status, stdout) of `script` run by `sh -s` on the place; stderr joins stdout."""
        timeout = timeout_s or self.timeout_s
        if place.target is None:
            proc = await asyncio.create_subprocess_exec(
                "sh", "-s", stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.STDOUT)
            try:
                out, _ = await asyncio.wait_for(proc.communicate(script.encode()), timeout)
            except TimeoutError:
                proc.kill()
                await proc.wait()
                raise ServerControlError(f"{place.host}: no answer from {what} within {timeout:g} s") from None
            return proc.returncode or 0, out
        if self.pool is None:
            raise ServerControlError(f"{place.host}: needs an SSH connection and none was given")
        return await self._ssh(place, script, what, timeout)

    async def _ssh(self, place: RunPlace, script: str, what: str, timeout: float) -> tuple[int, bytes]:
        import asyncssh

        from cockpit.sources.transport.remote_run import stop_remote
        from cockpit.sources.transport.ssh_pool import SshError

        assert self.pool is not None and place.target is not None
        try:
            conn = await asyncio.wait_for(self.pool.connection(place.target), timeout)
        except SshError as exc:
            raise ServerControlError(str(exc)) from None
        except TimeoutError:
            raise ServerControlError(f"{place.host}: no SSH connection within {timeout:g} s") from None
        try:
            # bytes (encoding=None): log chunks are cut at byte offsets
            proc = await conn.create_process("sh -s", input=script.encode(), encoding=None,
                                             stderr=asyncssh.STDOUT)
        except (OSError, asyncssh.Error) as exc:
            self.pool.invalidate(place.target, conn, "channel failed")
            raise ServerControlError(f"{place.host}: cannot run {what}: {exc}") from None
        try:
            result = await asyncio.wait_for(proc.wait(check=False), timeout)
        except TimeoutError:
            await stop_remote(proc)
            raise ServerControlError(f"{place.host}: no answer from {what} within {timeout:g} s") from None
        except (OSError, asyncssh.Error) as exc:
            raise ServerControlError(f"{place.host}: {what} failed: {exc}") from None
        out = result.stdout or b""
        return result.exit_status or 0, out if isinstance(out, bytes) else str(out).encode()

    async def status(self, place: RunPlace) -> ServerStatus:
        """The session's server on the place: running or not, what it was started from."""
        rc, out = await self._sh(place, _files(place) + _ALIVE + _STATUS, "the status check")
        return _parse_status(place.host, out.decode("utf-8", "replace"))

    async def gpu_check(self, place: RunPlace) -> GpuCheck:
        script = ('if command -v nvidia-smi >/dev/null 2>&1; then out=$(nvidia-smi --query-compute-apps='
                  'pid,process_name,used_memory --format=csv,noheader,nounits 2>&1); echo "gpucheck $?"; '
                  "printf '%s\\n' \"$out\" | sed '/^$/d; s/^/gpu /'; else echo 'gpucheck none'; fi\n")
        _, out = await self._sh(place, script, "nvidia-smi")
        return _parse_gpu(out.decode("utf-8", "replace").splitlines())

    async def start(self, plan: LaunchPlan, *, session_label: str = "SESSION") -> StartResult:
        """Start the plan's command detached. AlreadyRunning when the session's server runs
        there; ServerControlError when it could not start. Confirmation is the caller's."""
        rc, raw = await self._sh(plan.place, _start_script(plan), "the server start")
        lines = raw.decode("utf-8", "replace").splitlines()
        if rc == 3:
            raise AlreadyRunning(_parse_status(plan.place.host, "\n".join(lines)), session_label)
        errors = [ln[6:] for ln in lines if ln.startswith("error ")]
        started = next((ln for ln in lines if ln.startswith("started ")), None)
        if rc != 0 or started is None:
            why = errors[0] if errors else (lines[-1] if lines else f"exit status {rc}")
            raise ServerControlError(f"{plan.place.host}: cannot start {plan.profile_id}: {why}")
        offset = next((int(ln.split()[1]) for ln in lines if ln.startswith("offset ") and ln.split()[1].isdigit()), 0)
        pid = int(started.split()[1])
        status = ServerStatus(host=plan.place.host, running=True, pid=pid, fingerprint=plan.fingerprint,
                              profile_id=plan.profile_id, log_path=plan.log_path)
        return StartResult(status=status, log_path=plan.log_path, log_offset=offset, gpu=_parse_gpu(lines))

    async def stop(self, place: RunPlace, *, grace_s: float = 10.0) -> StopResult:
        """SIGTERM to the server's process group, SIGKILL after `grace_s`, then check that
        no process of the group is left (`left` names any that are)."""
        rc, raw = await self._sh(place, _stop_script(place, grace_s), "the server stop",
                                 timeout_s=self.timeout_s + grace_s + 5)
        lines = raw.decode("utf-8", "replace").splitlines()
        pid = next((int(ln.split()[1]) for ln in lines if ln.startswith("pid ")), None)
        signals = tuple(ln.split()[1] for ln in lines if ln.startswith("signal "))
        left_line = next((ln for ln in lines if ln.startswith("left")), None)
        left = tuple(int(x) for x in left_line.split()[1:] if x.isdigit()) if left_line else ()
        if rc == 7 and not left:
            left = (pid or 0,)
        if rc not in (0, 7):
            raise ServerControlError(f"{place.host}: the stop failed: {lines[-1] if lines else rc}")
        return StopResult(host=place.host, pid=pid, signals=signals, left=left)

    async def restart(self, plan: LaunchPlan, *, grace_s: float = 10.0, session_label: str = "SESSION") -> StartResult:
        stopped = await self.stop(plan.place, grace_s=grace_s)
        if not stopped.clean:
            raise ServerControlError(f"{plan.place.host}: processes {list(stopped.left)} of the old server are left")
        return await self.start(plan, session_label=session_label)

    async def read_log(self, place: RunPlace, log_path: str, offset: int, *, max_bytes: int = 1 << 20) -> LogChunk:
        """Log bytes from `offset` (at most `max_bytes`) and whether the server still runs."""
        _, raw = await self._sh(place, _read_script(place, log_path, offset, max_bytes), "the log read")
        head, _, data = raw.partition(b"\n")
        fields = head.decode("ascii", "replace").split()
        if len(fields) < 5 or fields[0] != "head":
            raise ServerControlError(f"{place.host}: unexpected answer reading {log_path}: {head[:200]!r}")
        running, off, n, truncated = fields[1] == "1", int(fields[2]), int(fields[3]), fields[4] == "1"
        exit_code = int(fields[5]) if len(fields) > 5 and fields[5].lstrip("-").isdigit() else None
        data = data[:n]
        return LogChunk(data=data, offset=off + len(data), running=running, exit_code=exit_code, truncated=truncated)


def _parse_status(host: str, text: str) -> ServerStatus:
    running, pid, exit_code = False, None, None
    info: dict[str, str] = {}
    for line in text.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("running", "stopped"):
            running = word == "running"
            pid = int(rest) if rest.strip().isdigit() else pid
        elif word == "exit" and rest.strip().lstrip("-").isdigit():
            exit_code = int(rest)
        elif word == "info":
            key, _, value = rest.partition("=")
            if key.endswith("%hex"):  # the exact value of one `_info_lines` made inert
                try:
                    key, value = key[:-4], bytes.fromhex(value).decode("utf-8", "surrogateescape")
                except ValueError:
                    continue
            elif key in info:  # the inert form never replaces the exact one
                continue
            info[key] = value
    return ServerStatus(host=host, running=running, pid=pid, fingerprint=info.get("fingerprint"),
                        profile_id=info.get("profile"), log_path=info.get("log"), started=info.get("started"),
                        exit_code=exit_code)


def _parse_gpu(lines: list[str]) -> GpuCheck:
    head = next((ln for ln in lines if ln.startswith("gpucheck ")), None)
    if head is None or head == "gpucheck none":
        return GpuCheck(checked=False, reason="no nvidia-smi on the host")
    rows = [ln[4:] for ln in lines if ln.startswith("gpu ")]
    if head != "gpucheck 0":
        return GpuCheck(checked=False, reason=f"nvidia-smi failed: {rows[0] if rows else head}"[:200])
    others = []
    for row in rows:
        parts = [p.strip() for p in row.split(",")]
        if len(parts) >= 3 and parts[0].isdigit():
            others.append(f"pid {parts[0]} {parts[1]} ({parts[2]} MiB)")
        elif row.strip() and "No running" not in row:
            return GpuCheck(checked=False, reason=f"nvidia-smi said: {row.strip()}"[:200])
    return GpuCheck(checked=True, others=tuple(others))
