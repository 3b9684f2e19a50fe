"""The POSIX sh scripts that start, stop, check and read the session's server on its host,
each fed to `sh -s` on stdin (ServerControl, control.py). Profile fields never
become shell syntax: every argv item, path and env value is quoted with `shlex.quote`, and
the env goes as `export` lines inside the script (nothing on a command line or on disk).
"""

from __future__ import annotations

import shlex
import time

from cockpit.ground.sanitize import sanitize
from cockpit.sources.server.places import LaunchPlan, RunPlace

__all__ = ["read_script", "start_script", "status_script", "stop_script"]


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


def status_script(place: RunPlace) -> str:
    """Whether the session's server runs on the place, and what it was started from."""
    return _files(place) + _ALIVE + _STATUS


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


# .info keys read back by `parse_status` (results.py; the others are for people only)
_INFO_READ_BACK = ("profile", "log", "command")


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


def start_script(plan: LaunchPlan) -> str:
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


def stop_script(place: RunPlace, grace_s: float) -> str:
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


def read_script(place: RunPlace, log_path: str, offset: int, max_bytes: int) -> str:
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
