"""Check a session's recorded packages against what their hosts run now (one probe per
host, over the shared SSH pool or on this machine); used by `cockpit drift` and the
Packages tab."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cockpit.model.bench.profile_diff import interpreter
from cockpit.model.enums import ProfileStatus
from cockpit.model.package_drift import DriftRow, compare, unknown
from cockpit.model.session import Package, Session
from cockpit.parse.version_probe import ProbeError, kind_of
from cockpit.sources.server.version_probe import probe_versions

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_pool import SshPool

HOST_NOT_CHECKED = "the host could not be checked"


def default_python(session: Session) -> str:
    """The interpreter of the working launch profile when its command names one."""
    for profile in session.launch:
        if profile.status is ProfileStatus.WORKING and (python := interpreter(profile.command)):
            return python
    return "python3"


def _where(session: Session, name: str | None) -> tuple[str, str | None, str | None]:
    """(label, ssh spec or None for this machine, jump) of a session host name or an SSH target."""
    if name is None:
        return "local", None, None
    host = next((h for h in session.hosts if h.name == name), None)
    if host is not None:
        return name, host.ssh or None, host.jump
    return name, name, None


async def check_drift(session: Session, *, pool: SshPool, host: str | None = None, python: str | None = None,
                      ssh_config: tuple[str, ...] | None = None,
                      known_hosts: str | None = None) -> tuple[list[DriftRow], list[str]]:
    """(a row per package, a note per host: what was checked or why it could not be).
    Packages with no recorded host are checked on `host` (default: this machine)."""
    from cockpit.sources.transport.ssh_pool import SshError
    from cockpit.sources.transport.ssh_target import SshTarget, with_config

    python = python or default_python(session)
    groups: dict[tuple[str, str | None, str | None], list[Package]] = {}
    for package in session.packages:
        groups.setdefault(_where(session, package.host or host), []).append(package)
    rows: list[DriftRow] = []
    notes: list[str] = []
    for (label, spec, jump), packages in groups.items():
        try:
            target = None if spec is None else with_config(
                SshTarget.parse(spec, jump=SshTarget.parse(jump) if jump else None), ssh_config, known_hosts)
            result = await probe_versions([p.name for p in packages], python, pool=pool, target=target)
        except (ProbeError, SshError, OSError, ValueError) as exc:  # ValueError: no SSH target
            notes.append(f"{label}: cannot check: {exc}")
            rows += [unknown(p, label, HOST_NOT_CHECKED) for p in packages]
            continue
        notes.append(f"{label}: {python} (python {result.python})")
        rows += [compare(p, label, result.version_of(p.name), kind_of(p.name)) for p in packages]
    return rows, notes
