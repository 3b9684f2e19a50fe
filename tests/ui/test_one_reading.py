"""One moment, one reading (#37 item 4, #38's Done-when): the TUI's findings, an assistant's
(MCP's findings resource) and `cockpit diagnose` build the rules' input from one snapshot of
the live state (live/state.py, `inputs_of`), so the same log, GPU samples and `/metrics`
pages give the same findings, figure for figure, in all three.

The inputs are real material: a corpus server log (scenario 09), an nvidia-smi CSV with a
link trained down under load (scenario 18) and two SGLang `/metrics` pages whose retraction
counter climbs (scenario 07: a rule that reads counters first to last, which a folded view
alone, the TUI's input before, could not). The feeds that carry them to the TUI and MCP are
fixed lists of what the sources would yield (STAND-IN for hosts: nothing to tail here).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from mcp import Client

from tui_support import make_app, until

from cockpit.assistant.live_state import LiveState as AssistantFeeds
from cockpit.assistant.mcp_server import build_server
from cockpit.live.diagnosis.load import gpus_from_text
from cockpit.live.log.items import lines_of
from cockpit.live.log.metrics import LogMetrics
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.model.session import Session
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.parse.log.events import LogEvent
from cockpit.parse.log.sglang_log import parse_line
from cockpit.parse.metrics.events import MetricsScraped
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.sources.feeds import LiveSources
from cockpit.ui.screens.findings import FindingsScreen
from cockpit.ui.widgets.chrome.host_deck import HostDeck

REPO = Path(__file__).resolve().parents[2]
SCENARIOS = REPO / "tests" / "data" / "diagnosis"
LOG = SCENARIOS / "09-queue-log-032" / "server.log"
GPUS = SCENARIOS / "18-pcie-gen4-under-load" / "gpus.txt"
PAGES = [SCENARIOS / "07-kv-metrics-retracted" / f"metrics-{n}.txt" for n in "ab"]
T0 = 1_800_000_000.0


class ListFeed:
    """What a source yields, in order (STAND-IN for a host's feed)."""

    def __init__(self, items: Sequence[object], description: str) -> None:
        self.items, self.description = items, description

    async def stream(self) -> AsyncIterator[object]:
        for item in self.items:
            await asyncio.sleep(0)
            yield item


def log_events() -> list[LogEvent]:
    """The corpus log's lines, parsed as the log feed parses them."""
    events: list[LogEvent] = []
    ts, ranks = None, None
    for line in LOG.read_text(encoding="utf-8").splitlines():
        event = parse_line(line, ts, ranks)
        ts, ranks = event.ts or ts, event.ranks
        events.append(event)
    return events


def sources(_session: Session | None = None) -> LiveSources:
    events = log_events()
    samples = tuple(gpus_from_text(GPUS.read_text(encoding="utf-8")))
    scrapes = [MetricsScraped(None, "http://127.0.0.1:30000/metrics", parse_exposition(p.read_text(encoding="utf-8")),
                              T0 + 5 * n, 0.01) for n, p in enumerate(PAGES)]
    return LiveSources(log=ListFeed([lines_of(events)], f"tail {LOG.name}"),
                       gpu=ListFeed([GpuSamplesTaken(None, samples, T0)], "nvidia-smi"),
                       metrics=ListFeed(scrapes, "metrics http://127.0.0.1:30000/metrics every 5 s"))


def reading(findings: Sequence[dict[str, object]]) -> list[tuple[object, ...]]:
    """What a person reads of each finding: key, claim, confidence and every evidence line."""
    return [(f["key"], f["claim"], f["confidence"], json.dumps(f["evidence"], sort_keys=True)) for f in findings]


async def test_the_tui_an_assistant_and_the_cli_read_the_same_findings(example_path: Path) -> None:
    # cockpit diagnose: the same material as files
    done = subprocess.run([sys.executable, "-m", "cockpit", "diagnose", str(example_path), "--json", "--log", str(LOG),
                           "--gpus", str(GPUS), "--metrics", *map(str, PAGES)],
                          capture_output=True, text=True, timeout=60, cwd=REPO)
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)["findings"]
    kinds = {f["kind"] for f in cli}
    # a rule of each input: the log, the GPUs, /metrics (its counters), the session
    assert {"kv_pressure", "pcie_downgrade", "regression"} <= kinds, kinds
    kv = next(f for f in cli if f["kind"] == "kv_pressure")
    assert any("/metrics" in e["text"] for e in kv["evidence"]), kv["evidence"]

    # an assistant, over MCP: its feeds folded by the live state the TUI folds with
    async with Client(build_server(example_path, live=AssistantFeeds(sources, first_wait_s=3.0))) as c:
        result = await c.read_resource("cockpit://session/findings")
        mcp = json.loads(result.contents[0].text)["findings"]  # type: ignore[union-attr]

    # the TUI: the findings view (D) over the app's live state
    app = make_app(example_path, sources=sources())
    async with app.run_test(size=(120, 40)) as pilot:
        def fed() -> bool:
            snap = app.live_state.snapshot()
            return (snap.log is not None and snap.log.total > 0 and snap.gpu is not None
                    and len(snap.scrapes) == len(PAGES))

        await until(fed, pilot)
        # the metrics pane shows the live state's fold of /metrics: the figures the rules read
        metrics = app.main_screen.query_one("#metrics-deck", HostDeck).shown
        await until(lambda: metrics.metrics is app.live_state.snapshot().server.metrics, pilot)  # type: ignore[union-attr]
        await pilot.press("D")
        await until(lambda: isinstance(app.screen, FindingsScreen), pilot)
        tui = [f.to_dict() for f in app.screen.findings]

    assert reading(tui) == reading(mcp) == reading(cli)
    assert kv["key"] in [f["key"] for f in tui]


async def test_the_gpu_panes_tok_per_joule_is_the_live_states(example_path: Path) -> None:
    """Tokens per joule: the log's throughput and the GPUs' power meet in the live state, not
    through the App; the GPU pane shows the figure the snapshot (what MCP reads) gives."""
    from cockpit.ui.widgets.gpu.pane import GpuPane

    events = log_events()
    fold = LogMetrics()
    fold.apply_all(events)
    snap = MetricsSnapshot.of(fold, len(events))
    points = snap.points["gen_throughput"]
    assert len(points) > 3
    samples = tuple(gpus_from_text(GPUS.read_text(encoding="utf-8")))
    ticks = [GpuSamplesTaken(None, samples, t) for t, _ in points]  # the power sampled on the log's clock
    feeds = LiveSources(log=ListFeed([lines_of(events), snap], f"tail {LOG.name}"), gpu=ListFeed(ticks, "nvidia-smi"))
    app = make_app(example_path, sources=feeds)
    async with app.run_test(size=(200, 50)) as pilot:
        pane = app.main_screen.query_one(GpuPane)

        def shown() -> bool:
            total = pane.query_one(".gpu-total").render()
            return "tok/J" in str(getattr(total, "plain", total))

        await until(lambda: len(pane.history.total_series()) == len(ticks) and shown(), pilot)
        assert pane.history is app.live_state.power  # one power fold, below the UI: the pane draws it
        expected = app.live_state.snapshot().tokens_per_joule
        assert expected is not None and expected > 0
        total = pane.query_one(".gpu-total").render()
        assert f"{expected:.3g} tok/J (log gen÷GPU J" in str(getattr(total, "plain", total))
