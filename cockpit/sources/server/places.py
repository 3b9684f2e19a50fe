"""Where a session's server runs and what starting a profile runs: the run place of a host
(its connection and run folder, `place_for_host`) and the launch plan of a profile
(`plan_launch`: argv, env, log path, fingerprint), shown to the person before a first run.
No I/O: ServerControl (control.py) runs the plan.
"""

from __future__ import annotations

import re
import shlex
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from cockpit.ground.redact import redact_env, redact_text
from cockpit.model.edit.lookup import by_id_or_name, known_records
from cockpit.model.launch.confirm import fingerprint, launch_stamp
from cockpit.model.session import Host, LaunchProfile, Session
from cockpit.sources.server.confirm_key import is_confirmed
from cockpit.sources.server.results import ServerControlError

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_target import SshTarget

__all__ = ["DEFAULT_RUN_DIR", "LOCAL", "LaunchPlan", "RunPlace", "find_profile", "place_for_host", "places_of_session",
           "plan_launch"]

LOCAL = "local"  # the place name of a profile that names no host
DEFAULT_RUN_DIR = "~/.cockpit/runs"
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


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
    """The profile's command fingerprint (the PID file's info: is what runs this profile as it is now)."""
    needs_confirmation: bool
    stamp: str = ""
    """What the person's seal covers: the fingerprint and the host's link (model/launch/confirm.py)."""

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


def places_of_session(session: Session, session_path: str | Path, *, ssh_config: tuple[str, ...] | None = None,
                      known_hosts: str | None = None) -> list[RunPlace]:
    """Every place a server of the session may run: its hosts, and this machine when a
    profile names no host."""
    names: list[str | None] = [h.name for h in session.hosts]
    if any(p.host is None for p in session.launch) or not names:
        names.append(None)
    return [place_for_host(session, session_path, n, ssh_config=ssh_config, known_hosts=known_hosts) for n in names]


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
    stamp = launch_stamp(profile, next((h for h in session.hosts if h.name == profile.host), None))
    log_path = place.log_path or f"{place.run_dir}/{profile.id}-{time.strftime('%Y%m%d-%H%M%S')}.log"
    return LaunchPlan(profile_id=profile.id, profile_name=profile.name, place=place, argv=argv,
                      env=dict(profile.env), log_path=log_path, fingerprint=fingerprint(profile),
                      needs_confirmation=not is_confirmed("launch", stamp, profile.confirmed), stamp=stamp)

