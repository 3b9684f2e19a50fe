"""`cockpit mcp SESSION`: the session as a Model Context Protocol server (official `mcp` SDK).

Resources read the file afresh on every read; each tool is one locked read-modify-write
through `SessionEditor` (see control/transaction.py). Tool arguments are validated by the SDK
against schemas taken from the session's pydantic models; a value the model refuses is a
tool error naming the field and why, and the file is left as it was. No tool runs a
command on a host or starts a server: that stays with the person at the TUI or the CLI.
The live resources (`live/...`: log lines, server run, GPUs, topology) follow the session's
hosts with the TUI's own feeds, started on their first read (see live_state.py; what they
say: live_resources.py). A client that listens is told which session resource changed,
whoever wrote the file (watch.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.subscriptions import InMemorySubscriptionBus, ResourceUpdated
from mcp.types import ToolAnnotations

from cockpit import __version__
from cockpit.assistant import diagnosis_tools, live_figures, live_resources, live_state, views
from cockpit.assistant.inputs import (
    BenchmarkFields,
    FileChangeFields,
    LaunchProfileFields,
    PackageFields,
    SweepFields,
    fields_of,
)
from cockpit.assistant.live_state import FeedState, LiveState
from cockpit.assistant.watch import SessionWatch
from cockpit.control.transaction import ASSISTANT, SessionFile
from cockpit.ground.redact import redact_text
from cockpit.ground.sanitize import sanitize
from cockpit.model.edit.edits import EditError, SessionEditor
from cockpit.model.enums import TASK_COLUMNS, Comparator, DiscoveryStatus, ProfileStatus, TaskStatus
from cockpit.model.ids import PREFIX, next_id
from cockpit.model.session import Session, Sweep
from cockpit.store.errors import SessionFileError

_T = TypeVar("_T")

URI = "cockpit://session/"

INSTRUCTIONS = (
    "This server is one cockpit session: the campaign's goal and targets, instructions, discoveries, task board, "
    "patched files, package versions, launch profiles, sweeps, hosts, benchmarks and last action. Read "
    "cockpit://session/handoff first. Record what you find and do with the tools as you go (a person may be "
    "watching the same session live); each call is saved at once and journaled 'via assistant'. Nothing here "
    "runs commands on a host or starts a server or sweep: the person does, confirming at a terminal. Listen "
    "(subscriptions/listen) to hear which session resource changed instead of polling. "
    "Where the session has hosts, cockpit://session/live/... shows the server log's last lines, the server "
    "run and its metrics, the GPUs and the topology as they are now."
)


# Every tool changes the session file and nothing else: it reaches no host and deletes nothing.
EDITS = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


def _fail(exc: Exception) -> str:
    text = exc.render() if isinstance(exc, SessionFileError) else str(exc)
    return sanitize(text, multiline=True)  # may quote a value the caller sent


def build_server(path: Path | str, *, live: LiveState | None = None, watch_s: float | None = None) -> MCPServer:
    """`live`: the hosts' feeds (tests pass one with their own wait); one is made if None.
    `watch_s`: how often the file is looked at for change notifications."""
    # every read is the file as it is now (parsed again when it changed); every tool call is one transaction
    # (control/transaction.py) whose editor journals "(via assistant)"
    file = SessionFile(path, actor=ASSISTANT)
    feeds = live or LiveState()
    bus = InMemorySubscriptionBus()

    async def updated(uri: str) -> None:
        await bus.publish(ResourceUpdated(uri=uri))

    @asynccontextmanager
    async def lifespan(_: MCPServer) -> AsyncIterator[dict[str, object]]:
        # whoever writes the file (a tool here, the TUI, `cockpit add`), listeners hear which resource changed
        watch = SessionWatch(Path(path), URI, updated, **({"interval_s": watch_s} if watch_s else {}))
        watching = asyncio.create_task(watch.run(), name="cockpit-mcp-watch")
        try:
            yield {}
        finally:  # the client went away: stop the watch, tails, GPU streams and SSH connections
            watching.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await watching
            await feeds.close()

    server: MCPServer = MCPServer(name="cockpit", version=__version__, instructions=INSTRUCTIONS,
                                  log_level="WARNING", lifespan=lifespan, subscriptions=bus)

    def read() -> Session:
        try:
            return file.session
        except (SessionFileError, OSError) as exc:
            raise ResourceError(_fail(exc)) from exc

    def write(change: Callable[[SessionEditor], _T]) -> _T:
        try:
            return file.transact(change)
        except (SessionFileError, EditError, ValueError, OSError) as exc:
            raise ToolError(_fail(exc)) from exc

    def tool(description: str) -> Callable[[Callable[..., str]], Callable[..., str]]:
        return server.tool(description=description, annotations=EDITS)

    # ----- resources ---------------------------------------------------------------------
    @server.resource(URI + "handoff", name="handoff", title="Handoff (Markdown)", mime_type="text/markdown",
                     description="The whole handoff: goal, instructions, discoveries, tasks, files, packages, "
                                 "working launch command, last action, benchmarks.")
    def handoff() -> str:
        return views.handoff(read())

    def add_section(name: str, description: str) -> None:
        def body() -> str:
            return views.section(name, read())

        server.resource(URI + name, name=name, description=description, mime_type="application/json")(body)

    for name, (description, _) in views.SECTIONS.items():
        add_section(name, description)

    # ----- live state of the session's hosts (feeds started on first read) ---------------
    async def feed(name: str, shows: str | None = None) -> FeedState | None:
        await feeds.ensure(read())
        return await feeds.settle(name, shows)

    async def log_lines(lines: int) -> str:
        text = live_resources.log_text(feeds, await feed("log"), lines)
        return sanitize(redact_text(text), multiline=True)  # log lines may print an --api-key

    @server.resource(URI + "live/log", name="live-log", title="Server log (last lines)", mime_type="text/plain",
                     description=f"The last {live_resources.LOG_LINES_DEFAULT} lines of the followed server log, as "
                                 "inert text, under a header saying the source and its connection. "
                                 "live/log/{lines} gives another count.")
    async def live_log() -> str:
        return await log_lines(live_resources.LOG_LINES_DEFAULT)

    @server.resource(URI + "live/log/{lines}", name="live-log-lines", mime_type="text/plain",
                     description=f"The last `lines` lines of the server log (at most {live_state.KEPT_LINES}).")
    async def live_log_n(lines: str) -> str:
        if not lines.isdigit() or not 0 < int(lines) <= live_state.KEPT_LINES:
            raise ResourceError(f"lines: a whole number from 1 to {live_state.KEPT_LINES}")
        return await log_lines(int(lines))

    @server.resource(URI + "live/server", name="live-server", mime_type="application/json",
                     description="The server run in the log now (starting, loading, capturing, ready, error, "
                                 "stopped; model, last error) and its metrics (current and peak generation "
                                 "throughput, running and queued requests, KV cache use).")
    async def live_server() -> str:
        return views.as_json(live_resources.server_state(feeds, await feed("log", shows="server")))

    @server.resource(URI + "live/gpus", name="live-gpus", mime_type="application/json",
                     description="The latest GPU sample: per GPU power of its enforced limit, utilisation, "
                                 "memory, temperature, clocks, throttle reasons; its age.")
    async def live_gpus() -> str:
        return views.as_json(live_resources.gpu_state(feeds, await feed("gpu")))

    @server.resource(URI + "live/topology", name="live-topology", mime_type="application/json",
                     description="The GPU topology (nvidia-smi topo -m): link class between each pair of GPUs, "
                                 "CPU and NUMA affinity.")
    async def live_topology() -> str:
        return views.as_json(live_resources.topology_state(feeds, await feed("topology")))

    @server.resource(URI + "live/metrics", name="live-metrics", mime_type="application/json",
                     description="Each host's server /metrics (its metrics_url), read now as the metrics pane "
                                 "reads it: running and queued requests, KV use, token and request rates, TTFT / "
                                 "ITL / E2E p50 p90 p99, per DP rank; or why it could not be read.")
    async def live_metrics() -> str:
        session = read()
        await feeds.ensure(session)  # the hosts' SSH pool, with cockpit mcp's SSH options
        hosts = getattr(getattr(feeds, "_sources", None), "hosts", None)
        return views.as_json(await live_figures.server_metrics(session, hosts))

    @server.resource(URI + "live/fleet", name="live-fleet", mime_type="application/json",
                     description="Each [[prometheus]] source's fleet now, as the Fleet tab shows it: hosts, "
                                 "their GPUs' power of limit and use, their servers' figures; or the error.")
    async def live_fleet() -> str:
        return views.as_json(await live_figures.fleet(read()))

    # ----- the diagnosis: open findings, dismiss / accept (assistant/diagnosis_tools.py) ----
    diagnosis_tools.register(server, URI, feeds, read, write, feed, tool)

    # ----- tasks -------------------------------------------------------------------------
    @tool("Add a task to the board; returns its id.")
    def add_task(title: str, status: TaskStatus = TaskStatus.TODO, notes: str | None = None) -> str:
        return write(lambda e: e.add_task(title, status, notes))

    @tool("Change a task's title and/or notes (only what is given).")
    def edit_task(task_id: str, title: str | None = None, notes: str | None = None) -> str:
        fields = {k: v for k, v in (("title", title), ("notes", notes)) if v is not None}
        if not fields:
            raise ToolError("give title or notes")
        write(lambda e: e.edit_task(task_id, **fields))
        return f"{task_id} edited"

    @tool("Move a task to another column (it lands at the column's end).")
    def move_task(task_id: str, to: TaskStatus) -> str:
        def change(e: SessionEditor) -> TaskStatus:
            task = next((t for t in e.session.tasks if t.id == task_id), None)
            if task is None:
                raise EditError(f"no task with id '{task_id}'")
            if task.status is to:
                raise EditError(f"{task_id} is already in {to.value}")
            return e.move_task(task_id, TASK_COLUMNS.index(to) - TASK_COLUMNS.index(task.status))

        return f"{task_id} moved to {write(change).value}"

    @tool("Set which discoveries a task rests on (replaces its links; both sides kept in step).")
    def link_task(task_id: str, discovery_ids: list[str]) -> str:
        write(lambda e: e.set_task_links(task_id, discovery_ids))
        return sanitize(f"{task_id} linked to {', '.join(discovery_ids) or 'nothing'}")

    @tool("Clear a task's review flag (set when a linked discovery changed status).")
    def acknowledge_review(task_id: str) -> str:
        write(lambda e: e.acknowledge_review(task_id))
        return f"{task_id} review acknowledged"

    # ----- discoveries -------------------------------------------------------------------
    @tool("Record a discovery (a claim with its evidence); returns its id.")
    def add_discovery(claim: str, evidence: str | None = None, status: DiscoveryStatus = DiscoveryStatus.HYPOTHESIS,
                      tags: list[str] | None = None) -> str:
        return write(lambda e: e.add_discovery(claim, evidence, status, tags))

    @tool("Change a discovery's status; tasks linked to it are flagged for review.")
    def set_discovery_status(discovery_id: str, status: DiscoveryStatus) -> str:
        write(lambda e: e.edit_discovery(discovery_id, status=status))
        return f"{discovery_id} is {status.value}"

    @tool("Add a goal target on any recorded figure and statistic: `figure` as `TTFT p99`, `server ITL p50`, "
          "`E2E p95`, `output tok/s`, `output tok/J`, `goodput` or a field name (`ttft_p99_ms`); `comparator` "
          ">=, >, <=, <. A point's value is the median of its runs. Returns its id.")
    def add_target(figure: str, comparator: Comparator, value: float, concurrency_min: int | None = None,
                   concurrency_max: int | None = None, label: str | None = None) -> str:
        from cockpit.model.bench.figures import parse_figure

        try:
            metric = parse_figure(figure)
        except ValueError as exc:
            raise ToolError(str(exc)) from exc
        fields = {"metric": metric, "comparator": comparator, "value": value, "concurrency_min": concurrency_min,
                  "concurrency_max": concurrency_max, "label": label}
        return write(lambda e: e.add_target(**{k: v for k, v in fields.items() if v is not None}))

    # ----- benchmarks, launch profiles, files, packages ----------------------------------
    @tool("Record a benchmark run (label and the figures measured); returns its id.")
    def record_benchmark(benchmark: BenchmarkFields) -> str:
        return write(lambda e: e.add_benchmark(**fields_of(benchmark)))

    @tool("Import the 'Serving Benchmark Result' block of sglang.bench_serving output text "
                             "as a benchmark; returns its id.")
    def import_bench_serving(text: str, label: str, profile: str | None = None, notes: str | None = None) -> str:
        from cockpit.parse.bench.bench_serving import bench_fields, refused_rows
        from cockpit.parse.log.events import BenchResult
        from cockpit.parse.log.sglang_log import parse_text

        if refused := refused_rows(text.splitlines()):
            raise ToolError("; ".join(f"text line {line}: {why}" for line, why in refused[:5]))
        results = [e for e in parse_text(text) if isinstance(e, BenchResult)]
        if not results:
            raise ToolError("no 'Serving Benchmark Result' block found in text")
        fields: dict[str, object] = {**bench_fields(results[-1].values)}
        fields.update({k: v for k, v in (("profile", profile), ("notes", notes)) if v is not None})
        return write(lambda e: e.add_benchmark(label=label, **fields))

    @tool("Add a launch profile (a server launch command); returns its id. Mark the one that "
                             "works with mark_profile_working.")
    def add_launch_profile(profile: LaunchProfileFields) -> str:
        return write(lambda e: e.add_record("launch", **fields_of(profile)))

    @tool("Change a launch profile's name, command, env, notes and/or host (only what is given; env replaces "
          "the whole table). A changed command, env or host is a different run: a person confirms it again "
          "before it starts.")
    def edit_launch_profile(profile: str, name: str | None = None, command: str | None = None,
                            env: dict[str, str] | None = None, notes: str | None = None,
                            host: str | None = None) -> str:
        fields = {k: v for k, v in (("name", name), ("command", command), ("env", env), ("notes", notes),
                                    ("host", host)) if v is not None}
        if not fields:
            raise ToolError("give name, command, env, notes or host")
        # `confirmed` is kept as it is: the fingerprint of the new command no longer matches it
        # (model/launch/confirm.py), so the next start asks the person again
        write(lambda e: e.edit_record("launch", profile, **fields))
        return sanitize(f"{profile} edited")

    @tool("Retire a launch profile that should not be used again: its status becomes broken, with "
          "'retired: <reason>' as why. It stays in the session (benchmarks keep their link).")
    def retire_launch_profile(profile: str, reason: str) -> str:
        if not reason.strip():
            raise ToolError("reason: say why the profile is retired")
        write(lambda e: e.edit_record("launch", profile, status=ProfileStatus.BROKEN,
                                      broken_reason=f"retired: {reason.strip()}"))
        return sanitize(f"{profile} retired")

    @tool("Add a sweep (a benchmark workload at several concurrencies); returns its id. It does not run: "
          "a person starts it, confirming its command at a terminal.")
    def add_sweep(sweep: SweepFields) -> str:
        fields = fields_of(sweep)

        def change(e: SessionEditor) -> str:
            ident = next_id(PREFIX["sweeps"], (s.id for s in e.session.sweeps))

            def add(s: Session) -> str:
                s.sweeps.append(Sweep(id=ident, **fields))
                return ident
            return e.apply(f"sweep added: {fields.get('name', ident)}", add, kind="sweep.added", ref=ident)

        return write(change)

    @tool("Mark a launch profile as the working one (the previous working one becomes a candidate).")
    def mark_profile_working(profile_id: str) -> str:
        write(lambda e: e.mark_profile_working(profile_id))
        return f"{profile_id} marked working"

    @tool("Record a file patched during the campaign; returns its id.")
    def record_file(file: FileChangeFields) -> str:
        return write(lambda e: e.add_record("files", **fields_of(file)))

    @tool("Record a package version that matters; returns its id.")
    def record_package(package: PackageFields) -> str:
        return write(lambda e: e.add_record("packages", **fields_of(package)))

    # ----- last action, journal ----------------------------------------------------------
    @tool("Set the last action, with the next step and a fallback if it fails.")
    def set_last_action(text: str, next_step: str | None = None, fallback: str | None = None) -> str:
        write(lambda e: e.set_last_action(text, next_step, fallback))
        return "last action set"

    @tool("Add a note to the session's journal (shown on the timeline).")
    def add_note(text: str) -> str:
        if not text.strip():
            raise ToolError("text: the note is empty")
        write(lambda e: e.add_note(text))
        return "note added"

    # ----- prompts -------------------------------------------------------------------------
    @server.prompt(name="resume-campaign", title="Resume this campaign",
                   description="The handoff, the tasks flagged for review and the targets not met yet.")
    def resume_campaign() -> str:
        s = read()
        reviews = views.open_reviews(s) or ["(none)"]
        failing = views.failing_targets(s) or ["(none)"]
        return "\n".join([
            "You are resuming a tuning campaign recorded in cockpit. Here is its handoff:", "",
            views.handoff(s), "",
            "Tasks flagged for review (a discovery they rest on changed status):", *(f"- {r}" for r in reviews), "",
            "Targets not met yet:", *(f"- {f}" for f in failing), "",
            "Check the review flags first (acknowledge_review when done), then continue from the last action's "
            "next step. Record what you find and do with the cockpit tools as you go.",
        ])

    @server.prompt(name="record-what-you-did", title="Record what you just did",
                   description="Asks for the last action, next step, fallback and any discovery.")
    def record_what_you_did() -> str:
        return ("Record in cockpit what you just did, before anything else:\n"
                "1. set_last_action: what you did (one line), the next step, and a fallback if that fails.\n"
                "2. add_discovery for anything you learned (status hypothesis unless a benchmark proves it), "
                "or set_discovery_status if a claim was confirmed or refuted.\n"
                "3. move_task / add_task so the board matches where the work is.\n"
                "4. record_benchmark or import_bench_serving for any run; record_file / record_package for "
                "patches and versions; add_launch_profile for a new launch command.")

    return server
