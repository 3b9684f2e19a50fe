"""The Markdown handoff: the seed's eight sections, in its order, then benchmarks.

Generated from the session so nobody writes it by hand; secrets are redacted.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from cockpit.model.enums import DiscoveryStatus, ProfileStatus, TaskStatus
from cockpit.model.profile_diff import diff_lines, diff_profiles
from cockpit.model.session import Benchmark, Discovery, FileChange, LaunchProfile, Session
from cockpit.model.targets import score_all
from cockpit.model.timeline import drops, throughput
from cockpit.store.redact import redact_env, redact_text

SECTIONS = (
    "Goal",
    "Instructions",
    "Discoveries",
    "Accomplished",
    "Relevant files",
    "Key package versions",
    "Working launch command",
    "Last action",
)


def _num(value: float | None) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if float(value).is_integer() or abs(value) >= 100 else f"{value:,.2f}".rstrip("0").rstrip(".")


def _when(value: datetime | None) -> str:
    return value.isoformat() if value else ""


def _cell(text: str | None) -> str:
    return (text or "").replace("|", "\\|").replace("\n", " ")


def _goal(s: Session) -> list[str]:
    out = []
    if s.goal.summary:
        out.append(s.goal.summary)
    facts = [f"**Model:** {s.goal.model}" if s.goal.model else "", f"**Hardware:** {s.goal.hardware}" if s.goal.hardware else ""]
    out += [f for f in facts if f]
    if s.goal.targets:
        out += ["", "| target | best so far | benchmark | status |", "| --- | --- | --- | --- |"]
        for score in score_all(s.goal.targets, s.benchmarks):
            name = score.target.label or score.target.describe()
            bench = f"{score.best.id} {score.best.label}" if score.best else "—"
            status = "met" if score.met else "not met"
            out.append(f"| {_cell(name)} (`{score.target.describe()}`) | {_num(score.best_value)} | {_cell(bench)} | {status} |")
    return out


def _discovery_line(d: Discovery) -> list[str]:
    links = [f"{kind}: {', '.join(ids)}" for kind, ids in (("benchmarks", d.benchmarks), ("files", d.files), ("tasks", d.tasks)) if ids]
    line = f"- **{d.id}** [{d.status.value}] {d.claim}"
    if links:
        line += f" ({'; '.join(links)})"
    out = [line]
    if d.evidence:
        out += [f"  - Evidence: {d.evidence.strip().replace(chr(10), chr(10) + '    ')}"]
    return out


def _discoveries(s: Session) -> list[str]:
    out: list[str] = []
    groups = (
        ("Confirmed", DiscoveryStatus.CONFIRMED),
        ("Hypotheses (not proven)", DiscoveryStatus.HYPOTHESIS),
        ("Refuted", DiscoveryStatus.REFUTED),
    )
    for title, status in groups:
        items = [d for d in s.discoveries if d.status is status]
        if items:
            out += [f"### {title}", ""]
            for d in items:
                out += _discovery_line(d)
            out.append("")
    return out[:-1] if out else ["(none recorded)"]


def _accomplished(s: Session) -> list[str]:
    out: list[str] = []
    groups = (
        ("Completed ✅", (TaskStatus.DONE,)),
        ("In progress 🔄", (TaskStatus.DOING,)),
        ("Not yet done ❌", (TaskStatus.TODO, TaskStatus.BLOCKED)),
    )
    for title, statuses in groups:
        items = sorted((t for t in s.tasks if t.status in statuses), key=lambda t: (statuses.index(t.status), t.order))
        out += [f"### {title}", ""]
        if not items:
            out.append("- (none)")
        for t in items:
            mark = " (blocked)" if t.status is TaskStatus.BLOCKED else ""
            review = " — review: a linked discovery changed" if t.review else ""
            out.append(f"- **{t.id}** {t.title}{mark}{review}")
            if t.notes:
                out.append(f"  - {t.notes.strip().replace(chr(10), chr(10) + '    ')}")
        out.append("")
    return out[:-1]


def _files(s: Session) -> list[str]:
    if not s.files:
        return ["(none recorded)"]
    by_host: dict[str, list[FileChange]] = defaultdict(list)
    for f in s.files:
        by_host[f.host or "(host not recorded)"].append(f)
    out: list[str] = []
    for host, files in by_host.items():
        out += [f"### {host}", ""]
        for f in files:
            where = f" (lines {f.lines})" if f.lines else ""
            what = f": {f.change}" if f.change else ""
            out.append(f"- `{f.path}`{where} [{f.state.value}]{what}")
        out.append("")
    return out[:-1]


def _packages(s: Session) -> list[str]:
    if not s.packages:
        return ["(none recorded)"]
    out = ["| package | version | host | captured |", "| --- | --- | --- | --- |"]
    for p in s.packages:
        out.append(f"| {_cell(p.name)} | {_cell(p.version)} | {_cell(p.host)} | {_when(p.captured)} |")
    return out


def _launch(s: Session) -> list[str]:
    working = [p for p in s.launch if p.status is ProfileStatus.WORKING]
    out: list[str] = []
    if not working:
        out.append("(no profile marked working)")
    for p in working:
        out += [f"**{p.name}** ({p.id}{', on ' + p.host if p.host else ''})", "", "```bash"]
        out += [f"export {k}={v}" for k, v in redact_env(p.env).items()]
        out += [redact_text(p.command), "```"]
        if p.notes:
            out += ["", p.notes]
        out.append("")
    others = [p for p in s.launch if p.status is not ProfileStatus.WORKING]
    if others:
        out += ["Other profiles" + (f", with what changes from the working {working[0].id}:"
                                    if len(working) == 1 else ":"), ""]
        for p in others:
            out.append(f"- **{p.name}** ({p.id}) [{p.status.value}]: `{redact_text(p.command)}`")
            if len(working) == 1:
                diff = diff_profiles(_redacted(working[0]), _redacted(p))
                out += [f"  - `{text}`" for kind, text in diff_lines(diff) if kind not in ("heading", "note")]
    return out


def _redacted(p: LaunchProfile) -> LaunchProfile:
    return p.model_copy(update={"command": redact_text(p.command), "env": redact_env(p.env)})


def _last_action(s: Session) -> list[str]:
    a = s.last_action
    if a is None:
        return ["(not recorded)"]
    out = [a.text + (f" ({_when(a.when)})" if a.when else "")]
    if a.next_step:
        out += ["", f"**Next step:** {a.next_step}"]
    if a.fallback:
        out += ["", f"**Fallback:** {a.fallback}"]
    return out


def _benchmarks(s: Session) -> list[str]:
    if not s.benchmarks:
        return ["(none recorded)"]
    names = {p.id: p.name for p in s.launch}
    out = [
        "| id | label | profile | concurrency | total tok/s | output tok/s | TTFT ms | ITL ms | when | notes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    b: Benchmark
    for b in s.benchmarks:
        out.append(
            f"| {b.id} | {_cell(b.label)} | {_cell(names.get(b.profile or '', b.profile))} | {b.concurrency or '—'} | "
            f"{_num(b.total_tok_s)} | {_num(b.output_tok_s)} | {_num(b.ttft_ms)} | {_num(b.itl_ms)} | "
            f"{_when(b.when)} | {_cell(redact_text(b.notes or ''))} |"
        )
    found = drops(s)
    if found:
        out += ["", "Throughput drops (a run more than 5% below the best earlier run of its workload), "
                    "with what changed since the run before:", ""]
        for d in found:
            out.append(f"- **{d.bench.id}** {d.fraction:.1%} below {d.best.id} "
                       f"({_num(throughput(d.bench))} vs {_num(throughput(d.best))}), since {d.previous.id}:")
            lines = [f"{c.kind}: {c.text}" for c in d.changes] + list(d.profile_changes)
            out += [f"  - `{redact_text(line)}`" for line in lines] or ["  - (nothing recorded)"]
    return out


def render_handoff(s: Session) -> str:
    bodies = (
        _goal(s),
        [f"{i + 1}. {redact_text(ins.text)}" for i, ins in enumerate(s.instructions)] or ["(none recorded)"],
        _discoveries(s),
        _accomplished(s),
        _files(s),
        _packages(s),
        _launch(s),
        _last_action(s),
    )
    lines = [f"# {s.title}", ""]
    for number, (title, body) in enumerate(zip(SECTIONS, bodies, strict=True), start=1):
        lines += [f"## {number}. {title}", "", *body, ""]
    lines += ["## Benchmarks", "", *_benchmarks(s), ""]
    # A last pass catches a token pasted into a note or an evidence text.
    return redact_text("\n".join(lines))
