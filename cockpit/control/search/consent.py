"""What a person sees before a search first runs, and the seal of their yes.

The space, the budget, the base command, the hosts and an estimate of the time: per trial
the start-to-ready time the session has recorded (the search's own trials, else 10 minutes)
plus the sweep's recorded point durations. The fingerprint covers what would run, so a
changed space, budget, base command, sweep or host list asks again.
"""

from __future__ import annotations

import hashlib
import json
import statistics

from cockpit.model.search.search import Search, Stepped
from cockpit.model.search.search_space import show_value
from cockpit.model.session import Session

__all__ = ["estimate_s", "search_fingerprint", "consent_lines"]

DEFAULT_READY_S = 600.0
DEFAULT_POINT_S = 120.0


def search_fingerprint(session: Session, search: Search, hosts: list[str | None]) -> str:
    base = next(p for p in session.launch if p.id == search.profile)
    sweep = next(s for s in session.sweeps if s.id == search.sweep)
    payload = json.dumps({"space": {k: (v.model_dump() if isinstance(v, Stepped) else v) for k, v in search.space.items()},
                          "trials": search.trials, "repeats": search.repeats, "command": base.command,
                          "env": dict(sorted(base.env.items())), "python": base.python,
                          "sweep": sweep.model_dump(mode="json", exclude={"confirmed", "notes", "name"}),
                          "hosts": [h or "local" for h in hosts], "ports": search.ports},
                         sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def estimate_s(session: Session, search: Search, trials: int, hosts: int) -> tuple[float, str]:
    """Seconds the `trials` launches take on `hosts` hosts, and what the figure stands on."""
    readies = [t.ready_s for s in session.searches for t in s.trial if t.ready_s is not None]
    ready = statistics.median(readies) if readies else DEFAULT_READY_S
    sweep = next(s for s in session.sweeps if s.id == search.sweep)
    per_point = [b.duration_s for b in session.benchmarks if b.sweep == sweep.id and b.duration_s is not None]
    point = statistics.median(per_point) if per_point else DEFAULT_POINT_S
    per_trial = ready + point * len(sweep.concurrencies)
    basis = (f"{'recorded start ' if readies else 'start (none recorded) '}{ready:.0f} s + "
             f"{len(sweep.concurrencies)} points x {point:.0f} s{'' if per_point else ' (none recorded)'}")
    rounds = -(-trials // max(hosts, 1))
    return rounds * per_trial, basis


def _clock(seconds: float) -> str:
    minutes = round(seconds / 60)
    return f"{minutes // 60} h {minutes % 60:02d} min" if minutes >= 60 else f"{max(minutes, 1)} min"


def consent_lines(session: Session, search: Search, hosts: list[str | None], trials: int) -> list[str]:
    base = next(p for p in session.launch if p.id == search.profile)
    total, basis = estimate_s(session, search, trials + search.repeats, len(hosts))
    lines = [f"search {search.id} ({search.name}): up to {trials} launches of {base.id} ({base.name})"
             + (f" + {search.repeats} relaunches of the best" if search.repeats else "")
             + f", sweep {search.sweep} each, on {', '.join(h or 'local' for h in hosts)}",
             f"  base command: {base.command}"]
    for key, dim in search.space.items():
        shown = (f"{dim.low:g}..{dim.high:g} step {dim.step:g}" if isinstance(dim, Stepped)
                 else ", ".join(show_value(v) for v in dim))
        lines.append(f"  {key}: {shown}")
    lines.append(f"  {search.grid_size()} configurations in the space; about {_clock(total)} ({basis} per trial)")
    return lines


def search_confirmed(stamp: str, confirmed: str | None) -> bool:
    """Whether the person sealed this very search (space, budget, hosts) with their own key."""
    from cockpit.sources.server.confirm_key import is_confirmed

    return is_confirmed("search", stamp, confirmed)


def seal_search(stamp: str) -> str:
    """The person's seal for this search; call only once they said yes at a terminal."""
    from cockpit.sources.server.confirm_key import confirmation

    return confirmation("search", stamp)
