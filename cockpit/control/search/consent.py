"""What a person sees before a search first runs, and the seal of their yes.

The space, the budget, the base command, the hosts and an estimate of the time: per trial
the start-to-ready time the session has recorded (the searches' trials and the journal's
`ready in N s` of every start; none: 10 minutes) plus the sweep's recorded point durations.
The fingerprint covers what would run, so a changed space, budget, base command, sweep or
host list asks again.
"""

from __future__ import annotations

import hashlib
import json
import re
import statistics

from cockpit.model.launch.confirm import host_link, launch_stamp
from cockpit.model.search.search import Search, SearchTrial, Stepped, TrialStatus
from cockpit.model.search.space import not_derived, show_value
from cockpit.model.session import LaunchProfile, Session

__all__ = ["estimate_s", "recorded_starts", "search_fingerprint", "consent_lines", "odd_trials", "trial_lines",
           "search_confirmed", "seal_launch", "seal_search"]

DEFAULT_READY_S = 600.0
DEFAULT_POINT_S = 120.0


def search_fingerprint(session: Session, search: Search, hosts: list[str | None]) -> str:
    base = next(p for p in session.launch if p.id == search.profile)
    sweep = next(s for s in session.sweeps if s.id == search.sweep)
    payload = json.dumps({"space": {k: (v.model_dump() if isinstance(v, Stepped) else v) for k, v in search.space.items()},
                          "trials": search.trials, "repeats": search.repeats, "command": base.command,
                          "env": dict(sorted(base.env.items())), "python": base.python,
                          "sweep": sweep.model_dump(mode="json", exclude={"confirmed", "notes", "name"}),
                          "hosts": [h or "local" for h in hosts], "ports": search.ports,
                          "links": [host_link(next((x for x in session.hosts if x.name == h), None)) for h in hosts]},
                         sort_keys=True, ensure_ascii=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


_READY = re.compile(r": ready in (\d+(?:\.\d+)?) s\b")


def recorded_starts(session: Session) -> list[float]:
    """Seconds from start to ready of every start the session recorded: the searches' trials
    and the journal's `... ready in 6.0 s` of `cockpit run` and the TUI."""
    out = [t.ready_s for s in session.searches for t in s.trial if t.ready_s is not None]
    texts = [e.text for e in session.journal]
    if session.last_action is not None:
        texts.append(session.last_action.text)
        if session.last_action.activity is not None:
            texts.append(session.last_action.activity.text)
    out += [float(m.group(1)) for text in texts if (m := _READY.search(text))]
    return out


def estimate_s(session: Session, search: Search, trials: int, hosts: int) -> tuple[float, str]:
    """Seconds the `trials` launches take on `hosts` hosts, and what the figure stands on."""
    readies = recorded_starts(session)
    ready = statistics.median(readies) if readies else DEFAULT_READY_S
    sweep = next(s for s in session.sweeps if s.id == search.sweep)
    per_point = [b.duration_s for b in session.benchmarks if b.sweep == sweep.id and b.duration_s is not None] or [
        b.duration_s for b in session.benchmarks if b.duration_s is not None]  # another sweep's points: a guide
    point = statistics.median(per_point) if per_point else DEFAULT_POINT_S
    per_trial = ready + point * len(sweep.concurrencies)
    basis = (f"{'recorded start ' if readies else 'start (none recorded) '}{_seconds(ready)} + "
             f"{len(sweep.concurrencies)} points x {_seconds(point)}{'' if per_point else ' (none recorded)'}")
    rounds = -(-trials // max(hosts, 1))
    return rounds * per_trial, basis


def _seconds(seconds: float) -> str:
    """`0.4 s`, `7 s`: a sandbox's sub-second start or point read `0 s` at whole seconds."""
    return f"{seconds:.1f} s" if seconds < 9.95 and seconds != round(seconds) else f"{seconds:.0f} s"


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


def odd_trials(session: Session, search: Search, hosts: list[str | None]) -> list[tuple[SearchTrial, LaunchProfile, str]]:
    """Trials left `running` on these hosts (a run resumes them) whose profile is not the base
    plus the space's flags and carries no seal of its own: (trial, profile, why) each. The
    search's seal does not cover them; a person confirms each (its launch seal)."""
    from cockpit.sources.server.confirm_key import is_confirmed

    base = next((p for p in session.launch if p.id == search.profile), None)
    out = []
    for trial in search.trial:
        if trial.status is not TrialStatus.RUNNING or trial.host not in hosts or base is None:
            continue
        profile = next((p for p in session.launch if p.id == (trial.profile or search.profile)), None)
        if profile is None:
            continue  # nothing to start: the trial fails as a missing profile
        why = not_derived(search, base, trial.params, trial.host, profile,
                          local_host=any(h.name == "local" for h in session.hosts))
        host = next((h for h in session.hosts if h.name == profile.host), None)
        if why is not None and not is_confirmed("launch", launch_stamp(profile, host), profile.confirmed):
            out.append((trial, profile, why))
    return out


def trial_lines(odd: list[tuple[SearchTrial, LaunchProfile, str]]) -> list[str]:
    """What a person sees of each odd trial before it is resumed."""
    from cockpit.ground.redact import redact_env, redact_text

    lines = []
    for trial, profile, why in odd:
        lines.append(f"trial {trial.number} on {trial.host or 'local'} resumes profile {profile.id}, which is not "
                     f"the base plus the space's flags ({why}):")
        lines.append(f"  command: {redact_text(profile.command)}")
        lines += [f"  env:     {k}={v}" for k, v in sorted(redact_env(profile.env).items())]
        if profile.python:
            lines.append(f"  python:  {profile.python}")
    return lines


def seal_launch(stamp: str) -> str:
    """The person's seal for a profile they saw (an odd trial's, model/launch_confirm.launch_stamp);
    call only once they said yes at a terminal."""
    from cockpit.sources.server.confirm_key import confirmation

    return confirmation("launch", stamp)
