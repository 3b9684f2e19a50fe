"""Three-way merge of sessions by record id: what was loaded, what is in memory, what is on disk.

The session file has more than one writer (the TUI, `cockpit add`, sweeps, assistants).
A save re-reads the file under the lock and merges instead of writing over it:
* a record added, changed or deleted on one side only keeps that side's change;
* a record both sides added under the same new id: this side's is renumbered (the next
  free id against both) and every link to it follows;
* the same field changed differently on both sides keeps this side's value; the other
  value is recorded as a `merge.conflict` journal event, so nothing is lost silently;
* link lists (a discovery's tasks, a task's discoveries, tags) merge as sets; a link to a
  record the other side deleted is dropped;
* the journal is a union; `ui` (the view) is always this side's.

Plain Python over the pydantic models; `merge_sessions` is also how undo reverts one step
on top of changes merged since (revert = merge(base=after, ours=before, theirs=now)).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from cockpit.model.ids import PREFIX, next_id
from cockpit.model.integrity import HOST_FIELDS, LINKS
from cockpit.model.session import (
    AUTO,
    LAST_ACTIONS_KEPT,
    Activity,
    FindingDecision,
    Host,
    JournalEvent,
    LastAction,
    PrometheusSource,
    Session,
    now,
)

# Collections of records keyed by `id`, in the session's field order.
ID_COLLECTIONS = ("instructions", "discoveries", "tasks", "files", "packages", "launch", "benchmarks", "sweeps",
                  "searches")
# Fields holding lists of ids or words: merged as sets, not as one value.
SET_FIELDS = frozenset({"benchmarks", "files", "tasks", "discoveries", "tags"})
SINGLE_FIELDS = ("schema_version", "title", "created")
# Fields an edit rewrites as a side effect (a column renumbered, a stamp): not content, so a
# difference in them alone neither keeps a deleted record nor makes a conflict.
LAYOUT_FIELDS = frozenset({"order", "updated", "captured"})
GOAL_FIELDS = ("summary", "model", "hardware")
_MISSING = object()


@dataclass(frozen=True, slots=True)
class Conflict:
    """One field both sides changed: this side's value was kept, the other's is here."""

    where: str  # "tasks t3.title", "title", "goal.summary"
    kept: str
    other: str
    ref: str | None = None

    def describe(self) -> str:
        return f"{self.where}: kept {self.kept}; the other writer had {self.other}"


@dataclass(slots=True)
class MergeResult:
    session: Session
    conflicts: list[Conflict] = field(default_factory=list)
    renumbered: dict[str, str] = field(default_factory=dict)
    """This side's new ids that the other side had taken first: old -> new."""
    dropped_links: list[str] = field(default_factory=list)
    taken: int = 0
    """Records the other side added, changed or deleted that this side now has."""

    def summary(self) -> str:
        """A short line for the header ("" when nothing came from the other side)."""
        parts = []
        if self.taken:
            parts.append(f"merged {self.taken} outside change{'s' if self.taken != 1 else ''}")
        if self.renumbered:
            parts.append(f"{len(self.renumbered)} renumbered")
        if self.conflicts:
            n = len(self.conflicts)
            parts.append(f"{n} conflict{'s' if n != 1 else ''}, yours kept")
        return ", ".join(parts)


_V = TypeVar("_V")
_R = TypeVar("_R", bound=BaseModel)


def _short(value: object, limit: int = 60) -> str:
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_none=True)
    text = repr(value.value if isinstance(value, Enum) else value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _same_content(a: BaseModel, b: BaseModel) -> bool:
    if a == b:
        return True
    fields = type(a).model_fields
    return all(getattr(a, n) == getattr(b, n) for n in fields if n not in LAYOUT_FIELDS)


def _merge_sets(base: list[_V], ours: list[_V], theirs: list[_V]) -> list[_V]:
    removed = {x for x in base if x not in ours or x not in theirs}
    out = [x for x in ours if x not in removed]
    out += [x for x in theirs if x not in removed and x not in out]
    return out


def _merge_record(kind: str, ident: str, base: _R | None, ours: _R, theirs: _R,
                  conflicts: list[Conflict]) -> _R:
    """Field by field; `base` None: both sides added a record of this key."""
    if ours == theirs:
        return ours
    if base is not None and ours == base:
        return theirs
    if base is not None and theirs == base:
        return ours
    values: dict[str, Any] = {}
    for name in type(ours).model_fields:
        o, t = getattr(ours, name), getattr(theirs, name)
        b = getattr(base, name) if base is not None else _MISSING
        if o == t or t == b:
            values[name] = o
        elif o == b:
            values[name] = t
        elif name in SET_FIELDS and isinstance(o, list):
            values[name] = _merge_sets(b if isinstance(b, list) else [], o, t)
        else:
            values[name] = o
            if name not in LAYOUT_FIELDS:
                conflicts.append(Conflict(f"{kind} {ident}.{name}", _short(o), _short(t), ident))
    return type(ours).model_validate(values)


def _merge_keyed(kind: str, key: Callable[[_R], str], base: list[_R], ours: list[_R], theirs: list[_R],
                 result: MergeResult) -> list[_R]:
    """Theirs' order, with this side's edits and deletions applied and its additions at the end."""
    if ours is theirs or ours == theirs:
        return list(ours)
    b = {key(x): x for x in base}
    o = {key(x): x for x in ours}
    out = []
    for item in theirs:
        k = key(item)
        mine = o.get(k)
        old = b.get(k)
        if mine is None:
            if old is None:  # added there
                out.append(item)
                result.taken += 1
            elif not _same_content(item, old):  # deleted here, changed there: keep theirs, not lose it
                out.append(item)
                result.conflicts.append(Conflict(f"{kind} {k}", "deleted", "changed: kept", k))
            # else deleted here: stays deleted
            continue
        merged = _merge_record(kind, k, old, mine, item, result.conflicts)
        if merged is not mine:
            result.taken += 1
        out.append(merged)
    theirs_keys = {key(x) for x in theirs}
    for k, mine in o.items():
        if k in theirs_keys:
            continue
        old = b.get(k)
        if old is None:  # added here
            out.append(mine)
        elif not _same_content(mine, old):  # changed here, deleted there: keep ours
            out.append(mine)
            result.conflicts.append(Conflict(f"{kind} {k}", "changed", "deleted: kept yours", k))
        else:
            result.taken += 1  # deleted there
    return out


def _renumber(ours: Session, base: Session, theirs: Session, result: MergeResult) -> Session:
    """This side's new records whose ids the other side also added get fresh ids."""
    mapping: dict[str, str] = {}
    for name in (*ID_COLLECTIONS, "targets"):
        def pick(s: Session, name: str = name) -> list[Any]:
            return s.goal.targets if name == "targets" else list(getattr(s, name))
        base_ids = {x.id for x in pick(base)}
        theirs_ids = {x.id for x in pick(theirs)}
        used = base_ids | theirs_ids | {x.id for x in pick(ours)}
        for item in pick(ours):
            if item.id in theirs_ids and item.id not in base_ids and item != _by_id(pick(theirs), item.id):
                new = next_id(PREFIX[name], used)
                used.add(new)
                mapping[item.id] = new
    if not mapping:
        return ours
    result.renumbered.update(mapping)
    return rename_ids(ours, mapping, keep=base)


def rename_ids(session: Session, mapping: dict[str, str], keep: Session | None = None) -> Session:
    """A copy with records renamed old -> new and every link, journal ref and selection
    following; records and journal events that `keep` has are left alone."""
    data = session.model_copy(deep=True)
    kept_ids = _all_ids(keep) if keep is not None else {}

    def follow(ref: str) -> str:
        return mapping.get(ref, ref)

    for name in (*ID_COLLECTIONS, "targets"):
        for item in (data.goal.targets if name == "targets" else getattr(data, name)):
            if item.id in mapping and item.id not in kept_ids.get(name, set()):
                item.id = mapping[item.id]
    for source, link_field, _dest in LINKS:
        for item in getattr(data, source):
            setattr(item, link_field, [follow(ref) for ref in getattr(item, link_field)])
    for bench in data.benchmarks:
        if bench.profile is not None:
            bench.profile = follow(bench.profile)
        if bench.sweep is not None:
            bench.sweep = follow(bench.sweep)
    kept_journal = {_journal_key(e) for e in keep.journal} if keep is not None else set()
    for event in data.journal:
        if event.ref in mapping and _journal_key(event) not in kept_journal:
            event.ref = mapping[event.ref]
    data.ui.selection = {k: follow(v) for k, v in data.ui.selection.items()}
    return data


def _by_id(items: Iterable[Any], ident: str) -> Any:
    return next((x for x in items if x.id == ident), None)


def _all_ids(session: Session) -> dict[str, set[str]]:
    out = {name: {x.id for x in getattr(session, name)} for name in ID_COLLECTIONS}
    out["targets"] = {x.id for x in session.goal.targets}
    return out


def _journal_key(event: JournalEvent) -> tuple[object, ...]:
    return (event.when, event.kind, event.text, event.ref)


def _merge_journal(base: list[JournalEvent], ours: list[JournalEvent], theirs: list[JournalEvent]) -> list[JournalEvent]:
    if ours is theirs:
        return list(ours)
    base_keys = {_journal_key(e) for e in base}
    ours_keys = {_journal_key(e) for e in ours}
    theirs_keys = {_journal_key(e) for e in theirs}
    # An event this side removed (an undo of a saved edit) stays removed.
    out = [e for e in theirs if _journal_key(e) in ours_keys or _journal_key(e) not in base_keys]
    out += [e for e in ours if _journal_key(e) not in theirs_keys and _journal_key(e) not in base_keys]
    return sorted(out, key=lambda e: e.when)


def _merge_value(where: str, base: _V, ours: _V, theirs: _V, result: MergeResult) -> _V:
    if ours == theirs or theirs == base:
        return ours
    if ours == base:
        result.taken += 1
        return theirs
    result.conflicts.append(Conflict(where, _short(ours), _short(theirs)))
    return ours


def _words(action: LastAction | None) -> LastAction | None:
    return action.model_copy(update={"activity": None}) if action is not None else None


def _merge_last_action(base: LastAction | None, ours: LastAction | None, theirs: LastAction | None,
                       result: MergeResult) -> LastAction | None:
    """A person's words and the automatic activity beside them merge apart; where both
    sides wrote new words and one side's are an automatic step's, the person's stay and the
    automatic words go beside them (no writer's automatic step replaces a person's words)."""
    w_base, w_ours, w_theirs = _words(base), _words(ours), _words(theirs)
    activity = _merge_value("last_action.activity", base.activity if base else None,
                            ours.activity if ours else None, theirs.activity if theirs else None, result)
    both_wrote = w_ours != w_theirs and w_ours != w_base and w_theirs != w_base
    if both_wrote and w_ours is not None and w_theirs is not None and (w_ours.by == AUTO) != (w_theirs.by == AUTO):
        person, auto = (w_theirs, w_ours) if w_ours.by == AUTO else (w_ours, w_theirs)
        result.taken += person is w_theirs
        return person.model_copy(update={"activity": Activity(text=auto.text, when=auto.when,
                                                              next_step=auto.next_step, fallback=auto.fallback)})
    words = _merge_value("last_action", w_base, w_ours, w_theirs, result)
    return words.model_copy(update={"activity": activity}) if words is not None else None


def _merge_history(base: list[LastAction], ours: list[LastAction], theirs: list[LastAction]) -> list[LastAction]:
    """Earlier last actions as a set: kept unless one side dropped it; oldest first, bounded."""
    kept = [a for a in ours if a in theirs or a not in base]
    kept += [a for a in theirs if a not in ours and a not in base]
    kept.sort(key=lambda a: a.when.timestamp() if a.when else 0.0)
    return kept[-LAST_ACTIONS_KEPT:]


def _drop_dangling(data: dict[str, Any], base: Session, ours: Session, theirs: Session,
                   result: MergeResult) -> None:
    """Links to records the other side deleted are dropped; a host still named is kept."""
    ids = {name: {x.id for x in data[name]} for name in ID_COLLECTIONS}
    for source, link_field, dest in LINKS:
        for index, item in enumerate(data[source]):
            refs = getattr(item, link_field)
            kept = [r for r in refs if r in ids[dest]]
            if kept != refs:
                result.dropped_links += [f"{item.id}.{link_field} -> {r}" for r in refs if r not in kept]
                data[source][index] = item.model_copy(update={link_field: kept})
    for index, bench in enumerate(data["benchmarks"]):
        if bench.profile is not None and bench.profile not in ids["launch"]:
            result.dropped_links.append(f"{bench.id}.profile -> {bench.profile}")
            data["benchmarks"][index] = bench.model_copy(update={"profile": None})
            bench = data["benchmarks"][index]
        if bench.sweep is not None and bench.sweep not in ids["sweeps"]:
            result.dropped_links.append(f"{bench.id}.sweep -> {bench.sweep}")
            data["benchmarks"][index] = bench.model_copy(update={"sweep": None})
    if data["hosts"]:
        names = {h.name for h in data["hosts"]}
        known = {h.name: h for s in (ours, base, theirs) for h in s.hosts}
        for coll in HOST_FIELDS:
            for item in data[coll]:
                if item.host is not None and item.host not in names and item.host in known:
                    data["hosts"].append(known[item.host])
                    names.add(item.host)


def merge_sessions(base: Session, ours: Session, theirs: Session) -> MergeResult:
    """Merge `ours` (this writer's, descended from `base`) with `theirs` (the file now)."""
    result = MergeResult(session=ours)
    if theirs == base or theirs is base:
        return result
    ours = _renumber(ours, base, theirs, result)
    data: dict[str, Any] = {}
    for name in SINGLE_FIELDS:
        data[name] = _merge_value(name, getattr(base, name), getattr(ours, name), getattr(theirs, name), result)
    data["last_action"] = _merge_last_action(base.last_action, ours.last_action, theirs.last_action, result)
    data["last_actions"] = _merge_history(base.last_actions, ours.last_actions, theirs.last_actions)
    goal: dict[str, Any] = {
        name: _merge_value(f"goal.{name}", getattr(base.goal, name), getattr(ours.goal, name),
                           getattr(theirs.goal, name), result)
        for name in GOAL_FIELDS
    }
    goal["targets"] = _merge_keyed("goal.targets", _ident, base.goal.targets, ours.goal.targets,
                                   theirs.goal.targets, result)
    data["goal"] = ours.goal.model_copy(update=goal)
    for name in ID_COLLECTIONS:
        data[name] = _merge_keyed(name, _ident, getattr(base, name), getattr(ours, name), getattr(theirs, name), result)
    data["hosts"] = _merge_keyed("hosts", _host_name, base.hosts, ours.hosts, theirs.hosts, result)
    data["prometheus"] = _merge_keyed("prometheus", _host_name, base.prometheus, ours.prometheus,
                                      theirs.prometheus, result)
    data["findings"] = _merge_keyed("findings", _finding_key, base.findings, ours.findings, theirs.findings, result)
    data["journal"] = _merge_journal(base.journal, ours.journal, theirs.journal)
    data["ui"] = ours.ui
    _drop_dangling(data, base, ours, theirs, result)
    stamp = now()
    notes = [JournalEvent(when=stamp, kind="merge.conflict", text=c.describe(), ref=c.ref) for c in result.conflicts]
    notes += [JournalEvent(when=stamp, kind="merge.renumbered", text=f"{old} renumbered {new}: another writer "
                           f"added {old} first", ref=new) for old, new in result.renumbered.items()]
    if result.dropped_links:
        notes.append(JournalEvent(when=stamp, kind="merge.links", text="links to records another writer deleted "
                                  "were dropped: " + ", ".join(result.dropped_links)))
    data["journal"] += notes
    result.session = Session.model_validate(data)
    return result


class _Ided(Protocol):
    """Every record in ID_COLLECTIONS, and the goal's targets."""

    id: str


def _ident(item: _Ided) -> str:
    return item.id


def _finding_key(item: FindingDecision) -> str:
    return item.key


def _host_name(item: Host | PrometheusSource) -> str:
    return item.name

