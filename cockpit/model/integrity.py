"""Cross-references a session must keep: unique ids, links that point somewhere."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from pydantic_core import PydanticCustomError


# What the check reads of a Session, named here so that this module (which session.py's
# validator calls) does not import session.py back; the collections are read by name.
class _Ided(Protocol):
    @property
    def id(self) -> str: ...


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class _Bench(Protocol):
    @property
    def profile(self) -> str | None: ...

    @property
    def sweep(self) -> str | None: ...


class _Goal(Protocol):
    @property
    def targets(self) -> Sequence[_Ided]: ...


class CheckedSession(Protocol):
    @property
    def goal(self) -> _Goal: ...

    @property
    def benchmarks(self) -> Sequence[_Bench]: ...

    @property
    def prometheus(self) -> Sequence[_Named]: ...

    @property
    def hosts(self) -> Sequence[_Named]: ...

# (collection, field with links, collection the links point into)
LINKS = (
    ("discoveries", "benchmarks", "benchmarks"),
    ("discoveries", "files", "files"),
    ("discoveries", "tasks", "tasks"),
    ("tasks", "discoveries", "discoveries"),
)
HOST_FIELDS = ("files", "packages", "launch")


def _fail(loc: str, message: str) -> None:
    # The location travels in the message so the store can point at the line.
    raise PydanticCustomError("integrity", "{loc}: {message}", {"loc": loc, "message": message})


def check_integrity(session: CheckedSession) -> None:
    ids: dict[str, set[str]] = {}
    for name in ("instructions", "discoveries", "tasks", "files", "packages", "launch", "benchmarks", "sweeps",
                 "searches"):
        seen: set[str] = set()
        for index, item in enumerate(getattr(session, name)):
            if item.id in seen:
                _fail(f"{name}[{index}].id", f"duplicate id '{item.id}'")
            seen.add(item.id)
        ids[name] = seen
    seen_targets: set[str] = set()
    for index, target in enumerate(session.goal.targets):
        if target.id in seen_targets:
            _fail(f"goal.targets[{index}].id", f"duplicate id '{target.id}'")
        seen_targets.add(target.id)
    for source, field, dest in LINKS:
        for index, item in enumerate(getattr(session, source)):
            for pos, ref in enumerate(getattr(item, field)):
                if ref not in ids[dest]:
                    _fail(f"{source}[{index}].{field}[{pos}]", f"links to missing {dest} id '{ref}'")
    for index, bench in enumerate(session.benchmarks):
        if bench.profile is not None and bench.profile not in ids["launch"]:
            _fail(f"benchmarks[{index}].profile", f"links to missing launch id '{bench.profile}'")
        if bench.sweep is not None and bench.sweep not in ids["sweeps"]:
            _fail(f"benchmarks[{index}].sweep", f"links to missing sweep id '{bench.sweep}'")
    names: set[str] = set()
    for index, prom in enumerate(session.prometheus):
        if prom.name in names:
            _fail(f"prometheus[{index}].name", f"duplicate prometheus name '{prom.name}'")
        names.add(prom.name)
    host_names: set[str] = set()
    for index, host in enumerate(session.hosts):
        if host.name in host_names:
            _fail(f"hosts[{index}].name", f"duplicate host name '{host.name}'")
        host_names.add(host.name)
    if session.hosts:
        for name in HOST_FIELDS:
            for index, item in enumerate(getattr(session, name)):
                if item.host is not None and item.host not in host_names:
                    _fail(f"{name}[{index}].host", f"names unknown host '{item.host}'")
    _check_searches(session, ids, seen_targets, host_names)


def _check_derived_command(session: Any, search: Any, where: str) -> None:
    """A trial's command (the base's with every flag of the space at its longest value) fits
    the bound a write applies to a command (model/text_limits.py): else the search passes a
    check and every trial's record is refused in `cockpit tune`."""
    import shlex

    from cockpit.model.search.search import ENV_KEY, show_value
    from cockpit.model.text_limits import MAX_LONG_TEXT

    base = next((p for p in session.launch if p.id == search.profile), None)
    if base is None:
        return
    longest = len(base.command) + sum(
        len(shlex.quote(key)) + 2 + max(len(shlex.quote(show_value(v))) for v in search.values_of(key))
        for key in search.space if not ENV_KEY.match(key))
    if longest > MAX_LONG_TEXT:
        _fail(f"{where}.space", f"a trial's command could be {longest:,} characters, over the "
                                f"{MAX_LONG_TEXT:,}-character limit for a command")


def _check_searches(session: Any, ids: dict[str, set[str]], targets: set[str], hosts: set[str]) -> None:
    """A search's base profile, sweep, constraint targets and hosts exist; its trials' links too.
    (`session` is read by name, as CheckedSession says, without importing session.py back.)"""
    for index, search in enumerate(session.searches):
        where = f"searches[{index}]"
        if search.profile not in ids["launch"]:
            _fail(f"{where}.profile", f"links to missing launch id '{search.profile}'")
        _check_derived_command(session, search, where)
        sweep = next((s for s in session.sweeps if s.id == search.sweep), None)
        if sweep is None:
            _fail(f"{where}.sweep", f"links to missing sweep id '{search.sweep}'")
        elif search.at_concurrency is not None and search.at_concurrency not in sweep.concurrencies:
            _fail(f"{where}.at_concurrency", f"{search.at_concurrency} is not a concurrency of sweep {sweep.id} "
                                             f"({', '.join(map(str, sweep.concurrencies))})")
        for pos, ref in enumerate(search.constraints):
            if ref not in targets:
                _fail(f"{where}.constraints[{pos}]", f"links to missing target id '{ref}'")
        for pos, name in enumerate([*search.hosts, *search.ports]):
            if name not in hosts and name != "local":
                _fail(f"{where}.hosts[{pos}]", f"names unknown host '{name}'")
        for pos, trial in enumerate(search.trial):
            if trial.profile is not None and trial.profile not in ids["launch"]:
                _fail(f"{where}.trial[{pos}].profile", f"links to missing launch id '{trial.profile}'")
            for b, ref in enumerate(trial.benchmarks):
                if ref not in ids["benchmarks"]:
                    _fail(f"{where}.trial[{pos}].benchmarks[{b}]", f"links to missing benchmarks id '{ref}'")
