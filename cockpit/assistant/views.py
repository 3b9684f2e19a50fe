"""What the assistant reads: each handoff section alone as JSON (ids included, so a tool
call can name a record), the whole handoff as Markdown, the timeline.

Everything leaves redacted (tokens in env, commands and notes masked, as in the handoff)
and inert (`sanitize` / `json_inert`: no control, bidi or zero-width character raw).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from cockpit.ground.redact import MASK, is_secret_flag, redact_env, redact_text
from cockpit.ground.sanitize import json_inert, sanitize
from cockpit.live.experiment.sweep_runs import sweep_runs
from cockpit.model.bench.targets import TargetScore, score_all
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import TASK_COLUMNS, ProfileStatus
from cockpit.model.session import Session
from cockpit.model.timeline import timeline
from cockpit.sources.server.confirm_key import log_command_confirmed
from cockpit.store.handoff.markdown import render_handoff


def _redacted(value: object, key: str = "") -> object:
    if isinstance(value, dict):
        if key == "env":
            return redact_env({str(k): str(v) for k, v in value.items()})
        return {k: _redacted(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [_redacted(v, key) for v in value]
    if isinstance(value, str):
        return redact_text(value)
    return value


def as_json(data: object) -> str:
    return json_inert(json.dumps(_redacted(data), ensure_ascii=False, indent=1))


def _dump(items: Sequence[BaseModel]) -> list[dict[str, Any]]:
    return [item.model_dump(mode="json", exclude_none=True) for item in items]


def _estimate(sc: TargetScore) -> dict[str, object]:
    """What a score stands on: the figure and statistic judged, and the point's median with its spread."""
    fig = sc.target.figure
    out: dict[str, Any] = {"figure": fig.name, "statistic": fig.statistic, "unit": fig.unit,
                           "measured_by": "server histogram" if fig.server else "bench client"}
    est = sc.estimate
    if est is not None:
        out["estimate"] = {"median": est.median, "min": est.minimum, "max": est.maximum, "n": est.n,
                           "ci95": list(est.ci) if est.ci is not None else None, "runs": list(est.runs),
                           "text": sc.value_text()}
    return out


def goal(s: Session) -> dict[str, object]:
    scores = [{"target": sc.target.model_dump(mode="json", exclude_none=True), "describe": sc.target.describe(),
               "best_value": sc.best_value, "best_benchmark": sc.best.id if sc.best else None, "met": sc.met,
               "every_run": sc.every_run, "breaking_benchmark": sc.breaking.id if sc.breaking else None,
               **_estimate(sc)}
              for sc in score_all(s.goal.targets, s.benchmarks)]
    return {"title": s.title, "summary": s.goal.summary, "model": s.goal.model, "hardware": s.goal.hardware,
            "targets": scores}


def tasks(s: Session) -> dict[str, object]:
    return {status.value: _dump(SessionEditor.column(s, status)) for status in TASK_COLUMNS}


def launch(s: Session) -> dict[str, object]:
    working = [p.id for p in s.launch if p.status is ProfileStatus.WORKING]
    return {"working": working, "profiles": _dump(s.launch)}


def sweeps(s: Session) -> list[dict[str, object]]:
    """Each sweep's workload and, per journaled run, which of its points have a record."""
    out = []
    for sweep in s.sweeps:
        item = sweep.model_dump(mode="json", exclude_none=True, exclude={"confirmed"})
        # argv items: the value after `--api-key` is its own item, which no text rule sees as one
        args = sweep.extra_args
        item["extra_args"] = [MASK if i and is_secret_flag(args[i - 1]) and not a.startswith("-") else a
                              for i, a in enumerate(args)]
        item["runs"] = [{"run": r.run_id, "profile": r.profile, "status": r.status, "recorded": list(r.recorded),
                         "missing": list(r.missing), "cut_short": r.cut_short} for r in sweep_runs(s, sweep)]
        out.append(item)
    return out


# `user:password@` in an endpoint's URL is a credential whatever its shape
_URL_USERINFO = re.compile(r"(?<=://)[^/@\s]+@")


def hosts(s: Session) -> list[dict[str, object]]:
    """Each host's connection settings; the seal itself stays out (only whether it holds)."""
    out = []
    for host in s.hosts:
        item = host.model_dump(mode="json", exclude_none=True, exclude={"log_confirmed"})
        for key in ("metrics_url", "dcgm_url"):
            if key in item:
                item[key] = _URL_USERINFO.sub(MASK + "@", item[key])
        if host.log_command:
            item["log_command_confirmed"] = log_command_confirmed(host)
        out.append(item)
    return out


def targets(s: Session) -> list[dict[str, object]]:
    """Each target over its range as the goal scores it: met, not met (and the run that breaks
    it), or no data yet."""
    out = []
    for sc in score_all(s.goal.targets, s.benchmarks):
        status = "no data" if sc.best_value is None else "met" if sc.met else "not met"
        item: dict[str, Any] = {**sc.target.model_dump(mode="json", exclude_none=True),
                                "describe": sc.target.describe(), "status": status, "best_value": sc.best_value,
                                "best_benchmark": sc.best.id if sc.best else None, "every_run": sc.every_run,
                                **_estimate(sc)}
        if sc.best is not None and sc.best.profile:
            item["best_profile"] = sc.best.profile
        if sc.breaking is not None:
            item["breaking_benchmark"] = sc.breaking.id
            item["breaking"] = sc.breaking_text()
        if sc.every_run and sc.best is not None:
            item["runs_in_range"] = sc.runs
        out.append(item)
    return out


def last_action(s: Session) -> dict[str, object] | None:
    if s.last_action is None:
        return None
    out: dict[str, Any] = s.last_action.model_dump(mode="json", exclude_none=True)
    if s.last_actions:  # what earlier last actions said, newest first
        out["earlier"] = [a.model_dump(mode="json", exclude_none=True) for a in reversed(s.last_actions)]
    return out


def timeline_entries(s: Session) -> list[dict[str, object]]:
    return [{"when": e.when.isoformat(), "kind": e.kind, "text": e.text, **({"ref": e.ref} if e.ref else {})}
            for e in timeline(s)]


# resource name -> (description, what it holds)
SECTIONS: dict[str, tuple[str, Callable[[Session], object]]] = {
    "goal": ("The goal and each target's best score so far (met or not).", goal),
    "instructions": ("The standing instructions.", lambda s: _dump(s.instructions)),
    "discoveries": ("Discoveries with status, evidence and links.", lambda s: _dump(s.discoveries)),
    "tasks": ("The task board by column (todo, doing, done, blocked); `review` marks a task to re-check.", tasks),
    "files": ("Patched files.", lambda s: _dump(s.files)),
    "packages": ("Key package versions.", lambda s: _dump(s.packages)),
    "launch": ("Launch profiles and which is working (secrets redacted).", launch),
    "benchmarks": ("Recorded benchmarks.", lambda s: _dump(s.benchmarks)),
    "sweeps": ("Sweeps ([[sweeps]]): each workload, its concurrencies and, per journaled run, which points are "
               "recorded and which are missing.", sweeps),
    "hosts": ("Hosts and their connection settings (secrets masked); whether a log_command is confirmed by a "
              "person.", hosts),
    "targets": ("Each goal target over its concurrency range: met, not met (with the run that breaks it) or no "
                "data, and the run its score stands on.", targets),
    "last-action": ("The last action, next step and fallback, the latest automatic step beside them (activity) and "
                    "earlier last actions (null when not recorded).", last_action),
    "timeline": ("The journal and benchmarks on one time axis, oldest first.", timeline_entries),
}


def section(name: str, s: Session) -> str:
    return as_json(SECTIONS[name][1](s))


def handoff(s: Session) -> str:
    return render_handoff(s)  # redacted and sanitized by the renderer itself


def open_reviews(s: Session) -> list[str]:
    return [sanitize(redact_text(f"{t.id} {t.title} [{t.status.value}]")) for t in s.tasks if t.review]


def failing_targets(s: Session) -> list[str]:
    out = []
    for sc in score_all(s.goal.targets, s.benchmarks):
        if not sc.met:
            best = f"so far {sc.value_text()} ({sc.best.id})" if sc.best and sc.best_value is not None else "no data"
            if sc.breaking_text():
                best = f"{sc.breaking_text()} breaks it"
            out.append(sanitize(f"{sc.target.id} {sc.target.label or sc.target.describe()}: {best}"))
    return out
