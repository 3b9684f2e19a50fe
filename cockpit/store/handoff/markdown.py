"""The Markdown handoff: the seed's eight sections, in its order, then benchmarks.

Generated from the session so nobody writes it by hand; secrets are redacted.

Session text is data, never Markdown: it cannot open HTML (`<` is written `&lt;`), a link
or a code span (`[`, `]`, backquotes escaped), a table cell (`|`) or, at a line's start, a
block (headings, quotes, lists, fences, rules); a one-line field's line breaks become
spaces. Commands go in code spans and fences longer than any backquote run inside them.
Control, bidi and zero-width characters are shown as visible placeholders (`sanitize`).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable
from datetime import datetime
from functools import partial
from pathlib import Path

from cockpit.ground.sanitize import sanitize
from cockpit.model.bench.estimate import estimates
from cockpit.model.bench.profile_diff import diff_lines, diff_profiles
from cockpit.model.bench.targets import score_all
from cockpit.model.enums import DiscoveryStatus, Metric, ProfileStatus, TaskStatus
from cockpit.model.figures import number as figure_number
from cockpit.model.figures import three_figures
from cockpit.model.session import Benchmark, Discovery, FileChange, LaunchProfile, Session
from cockpit.model.timeline import drops
from cockpit.store.atomic_write import write_atomic
from cockpit.store.redact import mask_secrets, redact_env, redact_text

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
    return figure_number(value)  # the one formatter (model/figures.py)


def _when(value: datetime | None) -> str:
    return value.isoformat() if value else ""


_INLINE = re.compile(r"[\\`\[\]|<]")
# What would start a block at a line's start: ATX heading, quote, list item, setext
# underline, thematic break, tilde fence (backquotes are escaped everywhere); the first
# character is escaped, an ordered list's `1.` at its dot.
_BLOCK_START = re.compile(
    r"^(\s*)(?:(?=#{1,6}(?:\s|$)|>|[-+*](?:\s|$)|=+\s*$|(?:[-*_]\s*){3,}$|~{3,})(.)|(\d{1,9})([.)])(?=\s|$))")
_BACKQUOTES = re.compile(r"`+")


def _escape_line(line: str) -> str:
    line = _INLINE.sub(lambda m: "&lt;" if m.group() == "<" else "\\" + m.group(), line)
    return _BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}" if m[2] else f"{m[1]}{m[3]}\\{m[4]}", line)


def _md(text: str | None, *, multiline: bool = False, indent: str = "") -> str:
    """Data as Markdown text (see the module doc); `multiline` keeps line breaks, each
    further line starting with `indent` (to stay inside a list item)."""
    text = mask_secrets((text or "").replace("\r\n", "\n"))  # a token pasted in a note never leaves
    if not multiline:
        return _escape_line(" ".join(text.split("\n")).strip())
    return ("\n" + indent).join(_escape_line(line) for line in text.strip().split("\n"))


def _fence_for(body: str) -> str:
    """A backquote fence longer than any run of backquotes in `body` (3 at least)."""
    return "`" * max(3, max(map(len, _BACKQUOTES.findall(body)), default=0) + 1)


def _code(text: str | None, *, in_table: bool = False) -> str:
    """An inline code span holding `text` literally, whatever backquotes it has."""
    text = mask_secrets(" ".join((text or "").split("\n")))
    fence = "`" * (max(map(len, _BACKQUOTES.findall(text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    if in_table:  # GFM splits cells at a pipe even inside a code span
        text = text.replace("|", "\\|")
    return f"{fence}{pad}{text}{pad}{fence}"


def _cell(text: str | None) -> str:
    return _md(text)


def _goal(s: Session) -> list[str]:
    out = []
    if s.goal.summary:
        out.append(_md(s.goal.summary, multiline=True))
    # A list: lines that follow one another in Markdown are one paragraph (the summary's).
    facts = [f"- **Model:** {_md(s.goal.model)}" if s.goal.model else "",
             f"- **Hardware:** {_md(s.goal.hardware)}" if s.goal.hardware else ""]
    if any(facts):
        out += ["", *(f for f in facts if f)] if out else [f for f in facts if f]
    if s.goal.targets:
        # a point's value is the median of its runs, with their spread: never the best run
        out += ["", "| target | so far (median of a point's runs, spread) | benchmark | status |",
                "| --- | --- | --- | --- |"]
        for score in score_all(s.goal.targets, s.benchmarks):
            name = score.target.label or score.target.describe()
            bench = f"{score.best.id} {score.best.label}" if score.best else "—"
            if score.estimate is not None and score.estimate.n > 1:
                bench += f" (median run of {', '.join(score.estimate.runs)})"
            status = "met" if score.met else "not met"
            if score.every_run and score.best is not None:
                where = f" at concurrency {score.best.concurrency}" if score.best.concurrency is not None else ""
                status = f"not met: {score.best.id}{where} breaks it" if score.breaking is not None else \
                    f"met by every run in range (worst: {score.best.id}{where})"
            value = score.value_text() if score.estimate is not None else "—"
            out.append(f"| {_cell(name)} ({_code(score.target.describe(), in_table=True)}) | {_cell(value)} "
                       f"| {_cell(bench)} | {status} |")
    return out


def _discovery_line(d: Discovery) -> list[str]:
    links = [f"{kind}: {', '.join(ids)}"
             for kind, ids in (("benchmarks", d.benchmarks), ("files", d.files), ("tasks", d.tasks)) if ids]
    line = f"- **{d.id}** [{d.status.value}] {_md(d.claim)}"
    if links:
        line += f" ({'; '.join(links)})"
    out = [line]
    if d.evidence:
        out += [f"  - Evidence: {_md(d.evidence, multiline=True, indent='    ')}"]
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
            out.append(f"- **{t.id}** {_md(t.title)}{mark}{review}")
            if t.notes:
                out.append(f"  - {_md(t.notes, multiline=True, indent='    ')}")
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
        out += [f"### {_md(host)}", ""]
        for f in files:
            where = f" (lines {_md(f.lines)})" if f.lines else ""
            what = f": {_md(f.change)}" if f.change else ""
            out.append(f"- {_code(f.path)}{where} [{f.state.value}]{what}")
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
        out += [f"**{_md(p.name)}** ({p.id}{', on ' + _md(p.host) if p.host else ''})", ""]
        body = "\n".join([*(f"export {k}={v}" for k, v in redact_env(p.env).items()), redact_text(p.command)])
        fence = _fence_for(body)
        out += [f"{fence}bash", body, fence]
        if p.notes:
            out += ["", _md(p.notes, multiline=True)]
        out.append("")
    others = [p for p in s.launch if p.status is not ProfileStatus.WORKING]
    if others:
        out += ["Other profiles" + (f", with what changes from the working {working[0].id}:"
                                    if len(working) == 1 else ":"), ""]
        for p in others:
            out.append(f"- **{_md(p.name)}** ({p.id}) [{p.status.value}]: {_code(redact_text(p.command))}")
            if len(working) == 1:
                diff = diff_profiles(_redacted(working[0]), _redacted(p))
                out += [f"  - {_code(text)}" for kind, text in diff_lines(diff) if kind not in ("heading", "note")]
    return out


def _redacted(p: LaunchProfile) -> LaunchProfile:
    return p.model_copy(update={"command": redact_text(p.command), "env": redact_env(p.env)})


def _last_action(s: Session) -> list[str]:
    a = s.last_action
    if a is None:
        return ["(not recorded)"]
    out = [_md(a.text) + (f" ({_when(a.when)})" if a.when else "")]
    if a.next_step:
        out += ["", f"**Next step:** {_md(a.next_step)}"]
    if a.fallback:
        out += ["", f"**Fallback:** {_md(a.fallback)}"]
    if a.activity is not None:
        step = a.activity
        line = f"**Since then (automatic):** {_md(step.text)}" + (f" ({_when(step.when)})" if step.when else "")
        if step.next_step:
            line += f"; suggests: {_md(step.next_step)}"
        if step.fallback:
            line += f"; fallback: {_md(step.fallback)}"
        out += ["", line]
    if s.last_actions:
        out += ["", "Earlier actions (newest first):", ""]
        for e in reversed(s.last_actions):
            said = [_md(e.text) + (f" ({_when(e.when)})" if e.when else "")]
            said += [f"next: {_md(e.next_step)}"] if e.next_step else []
            said += [f"fallback: {_md(e.fallback)}"] if e.fallback else []
            out.append("- " + "; ".join(said))
    return out


def _benchmarks(s: Session) -> list[str]:
    if not s.benchmarks:
        return ["(none recorded)"]
    names = {p.id: p.name for p in s.launch}
    out = [
        "| id | label | profile | concurrency | total tok/s | output tok/s | TTFT mean ms | ITL mean ms | when | notes |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    b: Benchmark
    for b in s.benchmarks:
        out.append(
            f"| {b.id} | {_cell(b.label)} | {_cell(names.get(b.profile or '', b.profile))} | {b.concurrency or '—'} | "
            f"{_num(b.total_tok_s)} | {_num(b.output_tok_s)} | {three_figures(b.ttft_ms)} | {three_figures(b.itl_ms)} | "
            f"{_when(b.when)} | {_cell(redact_text(b.notes or ''))} |"
        )
    found = drops(s)
    if found:
        out += ["", "Throughput drops (a run more than 5% below the best earlier point of its workload: the "
                    "profile with the highest median, a sweep's repeats judged on their median), "
                    "with what changed since the run before:", ""]
        for d in found:
            out.append(f"- **{d.bench.id}** {d.fraction:.1%} below {_md(d.reference())} "
                       f"({_num(d.value)}{f' median of {d.runs}' if d.runs > 1 else ''} vs {_num(d.best_value)}), "
                       f"since {d.previous.id}:")
            lines = [f"{c.kind}: {c.text}" for c in d.changes] + list(d.profile_changes)
            out += [f"  - {_code(redact_text(line))}" for line in lines] or ["  - (nothing recorded)"]
    return out


def handoff_path(session_path: Path | str) -> Path:
    """Where the handoff of a session file is written: `<stem>.handoff.md` beside it."""
    path = Path(session_path)
    return path.with_name(f"{path.stem}.handoff.md")


def write_handoff(s: Session, session_path: Path | str) -> Path:
    """The handoff written (atomically, no .bak) beside the session file; returns where.
    Raises SaveError / SessionReadOnlyError (`path: reason`) when it cannot be written."""
    target = handoff_path(session_path)
    write_atomic(target, render_handoff(s), keep_backup=False)
    return target


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def _server(b: Benchmark, key: str) -> str:
    """A server percentile with the histogram bucket it was interpolated in (`19.9 (bucket 10–20)`)."""
    value, bucket = getattr(b, key), b.server_buckets.get(key)
    return three_figures(value) + (f" (bucket {bucket[0]:g}–{bucket[1]:g})" if value is not None and bucket else "")


# Sweep table columns: (header, cell, always shown); the optional ones appear when a row has them.
# Latencies, per-stream rates and tok/J to three figures with their zeros (10.6 above 3.00, not 3).
_SWEEP_COLUMNS: tuple[tuple[str, Callable[[Benchmark], str], bool], ...] = (
    ("concurrency", lambda b: str(b.concurrency or "—"), True),
    ("repeat", lambda b: str(b.repeat) if b.repeat else "—", False),
    ("total tok/s", lambda b: _num(b.total_tok_s), True),
    ("output tok/s", lambda b: _num(b.output_tok_s), True),
    ("per-stream tok/s", lambda b: three_figures(b.metric(Metric.OUTPUT_TOK_S_PER_STREAM)), True),
    ("TTFT p99 ms", lambda b: three_figures(b.ttft_p99_ms), False),
    ("server TTFT p99 ms", lambda b: _server(b, "server_ttft_p99_ms"), False),
    ("power share", lambda b: _share(b.power_share), False),
    ("total tok/J", lambda b: three_figures(b.tok_per_joule), False),  # input + output tokens per joule
    ("output tok/J", lambda b: three_figures(b.output_tok_per_joule), False),
    ("run", lambda b: b.id, True),
)


def _sweeps(s: Session) -> list[str]:
    """A compact table per profile and sweep: a row per concurrency, in concurrency order."""
    groups: dict[tuple[str, str], list[Benchmark]] = defaultdict(list)
    for b in s.benchmarks:
        if b.sweep is not None:
            groups[(b.profile or "", b.sweep)].append(b)
    if not groups:
        return []
    profiles = {p.id: p for p in s.launch}
    sweeps = {w.id: w for w in s.sweeps}
    order = {pid: i for i, pid in enumerate([*profiles, ""])}
    out = ["", "### Sweeps", ""]
    for (pid, sid), rows in sorted(groups.items(), key=lambda g: order.get(g[0][0], len(order))):
        rows.sort(key=lambda b: b.concurrency or 0)  # stable: re-runs stay in recorded order
        profile, sweep = profiles.get(pid), sweeps.get(sid)
        who = f"**{_md(profile.name)}** ({pid})" if profile else "**(no profile)**"
        what = f"sweep {_md(sid)}"
        if sweep is not None:
            what += f" {_md(sweep.name)}: {_md(sweep.workload())}"
        columns = [c for c in _SWEEP_COLUMNS if c[2] or any(c[1](b) != "—" for b in rows)]
        out += [f"{who}, {what}", "",
                "| " + " | ".join(c[0] for c in columns) + " |", "|" + " --- |" * len(columns)]
        out += ["| " + " | ".join(c[1](b) for c in columns) + " |" for b in rows]
        out += _point_estimates(rows)
        out.append("")
    return out[:-1]


_POINT_FIGURES: tuple[tuple[str, Metric], ...] = (
    ("total tok/s", Metric.TOTAL_TOK_S), ("output tok/s", Metric.OUTPUT_TOK_S), ("TTFT p99 ms", Metric.TTFT_P99_MS),
    ("ITL p99 ms", Metric.ITL_P99_MS), ("output tok/J", Metric.OUTPUT_TOK_PER_JOULE))


def _point_estimates(rows: list[Benchmark]) -> list[str]:
    """Where a point was run more than once: per concurrency the median over its runs with
    min–max, n and (from three runs) the bootstrap interval; the figures the views decide on."""
    if all(n == 1 for n in Counter(b.concurrency for b in rows if b.concurrency is not None).values()):
        return []
    columns = [(h, m) for h, m in _POINT_FIGURES if any(b.metric(m) is not None for b in rows)]
    per = [estimates(rows, partial(Benchmark.metric, metric=m)) for _h, m in columns]
    concurrencies = sorted({key[2] for found in per for key in found})
    out = ["", "Per point, over all its runs (median; n, min–max, 95% CI from 3 runs):", "",
           "| concurrency | " + " | ".join(h for h, _m in columns) + " |", "|" + " --- |" * (len(columns) + 1)]
    for conc in concurrencies:
        cells = []
        for found in per:
            est = next((e for key, e in found.items() if key[2] == conc), None)
            cells.append("—" if est is None else _cell(f"{_num(est.median)} ({est.spread_text()})"))
        out.append(f"| {conc} | " + " | ".join(cells) + " |")
    return out


_URL_USERINFO = re.compile(r"(?i)\b(https?://)[^/@\s]+@")


def _hosts(s: Session) -> list[str]:
    """Where things run: a row per host (its SSH target or this machine, the log it follows,
    GPU source, metrics endpoint), so the next person can reconnect without the TOML file."""
    if not s.hosts:
        return ["(none recorded)"]
    out = ["| host | ssh | log | GPUs | metrics | about |", "| --- | --- | --- | --- | --- | --- |"]
    for h in s.hosts:
        ssh = _code(h.ssh, in_table=True) + (f" via {_code(h.jump, in_table=True)}" if h.jump else "") \
            if h.ssh else "this machine"
        if h.log_command:
            log = _code(redact_text(h.log_command), in_table=True)
        elif h.log_path:
            log = _code(h.log_path, in_table=True)
        else:
            log = "—"
        metrics = _code(_URL_USERINFO.sub(r"\1[REDACTED]@", h.metrics_url), in_table=True) if h.metrics_url else "—"
        out.append(f"| {_cell(h.name)} | {ssh} | {log} | {h.gpu_source.value} | {metrics} | {_cell(h.description)} |")
    return out


def render_handoff(s: Session) -> str:
    bodies = (
        _goal(s),
        [f"{i + 1}. {_md(redact_text(ins.text))}" for i, ins in enumerate(s.instructions)] or ["(none recorded)"],
        _discoveries(s),
        _accomplished(s),
        _files(s),
        _packages(s),
        _launch(s),
        _last_action(s),
    )
    lines = [f"# {_md(s.title)}", ""]
    for number, (title, body) in enumerate(zip(SECTIONS, bodies, strict=True), start=1):
        lines += [f"## {number}. {title}", "", *body, ""]
    lines += ["## Benchmarks", "", *_benchmarks(s), *_sweeps(s), ""]
    lines += ["## Hosts", "", *_hosts(s), ""]
    if s.searches:
        from cockpit.store.handoff.search import searches_section

        lines += ["## Searches", "", *searches_section(s, _cell, _md)]
    # A last pass catches a token pasted into a note or an evidence text; then no control,
    # bidi or zero-width character leaves raw (in a fence or a code span either).
    return sanitize(redact_text("\n".join(lines)), multiline=True)
