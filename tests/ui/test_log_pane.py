"""The log pane: fed from real files through LogFeed, driven by its keys, drawn inert."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from paths import CORPUS
from waits import patience

from cockpit.control.log_pipeline import LogPipeline
from cockpit.live.log.items import SummaryBefore, lines_of
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.parse.log.sglang_log import parse_text
from cockpit.sources.log.batch import LogBatch
from cockpit.sources.log.feed import LogFeed
from cockpit.ui.log_app import LogApp
from cockpit.ui.widgets.log.buffer import ERROR
from cockpit.ui.widgets.log.metrics_strip import LogMetricsStrip
from cockpit.ui.widgets.log.pane import LogPane

LOGS = CORPUS / "sglang-logs"
CUDA_OOM = [
    "[2025-03-01 12:10:00 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2100, in run_scheduler_process',
    "    scheduler.event_loop_overlap()",
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB",
]
HOSTILE = ("[2025-01-01 10:00:09 TP0] evil \x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07 "
           "[bold red]markup[/] nul\x00 bidi\u202eevil\u202c end")


def corpus_lines(*names: str) -> list[str]:
    out: list[str] = []
    for name in names:
        out += (LOGS / f"{name}.log").read_text(encoding="utf-8").splitlines()
    return out


def decode_lines(n: int, start_s: int = 0, dp: int | None = None) -> list[str]:
    tag = f" DP{dp} TP{dp}" if dp is not None else " TP0"
    out = []
    for i in range(n):
        s = start_s + i * 2
        out.append(f"[2025-03-01 12:{s // 60 % 60:02d}:{s % 60:02d}{tag}] Decode batch. #running-req: {10 + i % 7}, "
                   f"#token: {5000 + 40 * i}, token usage: {0.1 + (i % 10) / 20:.2f}, "
                   f"gen throughput (token/s): {800 + 37 * (i % 13):.2f}, #queue-req: {i % 4}")
    return out


class PaneApp(LogApp):
    """The pane alone: `cockpit log`'s app, optionally pumping a LogFeed into it; its clock
    stands still (the last line's age stays "just now" in the snapshots)."""

    def __init__(self, feed: LogFeed | None = None, max_lines: int = 50_000) -> None:
        super().__init__(feed, max_lines=max_lines, clock=lambda: 0.0)


class BatchFeed:
    """Batches as `LogFeed.stream()` yields them: bytes, notes, a summary."""

    description = "test batches"

    def __init__(self, *batches: LogBatch) -> None:
        self.batches = batches

    async def stream(self):  # noqa: ANN201
        for batch in self.batches:
            yield batch


async def through_pipeline(pane: LogPane, *batches: LogBatch) -> LogPipeline:
    """Run the batches through a LogPipeline (parsed and folded in its child) into the
    pane, as the app does; returns when every line and the last figures are in."""
    pipeline = LogPipeline(BatchFeed(*batches))
    async for item in pipeline.stream():
        pane.feed(item)
    return pipeline


def text_batch(lines: list[str], **kw) -> LogBatch:  # noqa: ANN003
    return LogBatch(data="".join(line + "\n" for line in lines).encode(), **kw)


async def until(pilot, cond: Callable[[], bool], timeout: float = 15.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + patience(timeout)
    while not cond():
        assert loop.time() < end, "timed out waiting"
        await pilot.pause(0.02)
    await pilot.pause()


def screen_rows(pane: LogPane) -> list[str]:
    view = pane.view
    return ["".join(seg.text for seg in view.render_line(y)).rstrip()
            for y in range(view.scrollable_content_region.height)]


def write(path: Path, lines: list[str], mode: str = "a") -> None:
    with path.open(mode, encoding="utf-8", newline="\n") as f:
        f.write("".join(line + "\n" for line in lines))


def feed_app(path: Path, **kw) -> PaneApp:
    return PaneApp(LogFeed.local(str(path), lines=50_000, max_delay_s=0.02), **kw)


# ----- follow, pause, filter, toggles -------------------------------------------------------
async def test_follow_shows_appended_lines_and_pause_holds_the_view(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    write(log, corpus_lines("023") + decode_lines(100), "w")
    app = feed_app(log)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await until(pilot, lambda: len(pane.buffer) >= len(corpus_lines("023")) + 100)
        assert screen_rows(pane)[-1].startswith("[2025-03-01 12:03:18 TP0] Decode")  # the last line
        await pilot.press("f")
        assert pane.view_state.follow is False
        top = pane.view.scroll_y
        write(log, ["[2025-03-01 13:00:00 TP0] appended while paused"])
        await until(pilot, lambda: "appended while paused" in pane.buffer.tail_texts(1)[0])
        assert pane.view.scroll_y == top
        assert not any("appended while paused" in row for row in screen_rows(pane))
        await pilot.press("f")
        await pilot.pause()
        assert pane.view_state.follow is True
        assert screen_rows(pane)[-1].endswith("appended while paused")


async def test_scrolling_back_pauses_and_end_follows_again(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    write(log, decode_lines(200), "w")
    app = feed_app(log)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await until(pilot, lambda: len(pane.buffer) >= 200)
        await pilot.press("pageup")
        assert pane.view_state.follow is False
        await pilot.press("end")
        assert pane.view_state.follow is True


async def test_search_jumps_to_newest_match_then_next_and_previous(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    lines = decode_lines(300)
    for k in (20, 150, 280):
        lines[k] = f"[2025-03-01 12:00:00 TP0] needle number {k}"
    write(log, lines, "w")
    app = feed_app(log)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await until(pilot, lambda: len(pane.buffer) >= 300)
        await pilot.press("slash")
        await pilot.press(*"needle", "enter")
        await pilot.pause()
        assert pane.view_state.search == "needle" and pane.view_state.follow is False

        def current() -> str:
            return pane.buffer.line_at(pane.view.current_row).text

        assert current().endswith("needle number 280")
        assert any(row.endswith("needle number 280") for row in screen_rows(pane))
        await pilot.press("N")
        assert current().endswith("needle number 150")
        assert any(row.endswith("needle number 150") for row in screen_rows(pane))
        await pilot.press("N")
        assert current().endswith("needle number 20")
        await pilot.press("n")
        assert current().endswith("needle number 150")


async def test_filter_errors_only_and_hide_batches(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    write(log, corpus_lines("023") + decode_lines(50) + corpus_lines("002") + decode_lines(20, 200), "w")
    app = feed_app(log)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(LogPane)
        total = len(corpus_lines("023", "002")) + 70
        await until(pilot, lambda: len(pane.buffer) >= total)
        texts = lambda: [pane.buffer.line_at(r).text for r in range(pane.buffer.rows)]  # noqa: E731

        assert pane.border_title == "Server log · follow"
        await pilot.press("b")
        assert pane.view_state.hide_batches
        assert pane.border_title == "Server log · follow · no batch lines"  # says what is hidden
        assert not any("Decode batch" in t for t in texts()) and texts()
        await pilot.press("b")
        assert pane.buffer.rows == total

        await pilot.press("E")
        assert pane.view_state.errors_only
        shown = texts()
        assert shown and all(pane.buffer.line_at(r).flags & 3 for r in range(pane.buffer.rows))
        assert shown[-1].startswith("RuntimeError: NCCL error")  # the whole traceback, not one line
        assert any(t.startswith("  File ") for t in shown)
        await pilot.press("E")

        await pilot.press("backslash")
        await pilot.press(*"queue-req: 3", "enter")
        await pilot.pause()
        assert pane.view_state.filter == "queue-req: 3"
        assert pane.border_title == "Server log · follow · filter: queue-req: 3"
        assert texts() and all("queue-req: 3" in t for t in texts())
        assert str(pane.border_subtitle).split(" · ")[0].endswith(f"of {total:,} lines")
        saved = pane.view_state
        assert saved.filter == "queue-req: 3" and not saved.errors_only


async def test_view_state_restores(tmp_path: Path) -> None:
    from dataclasses import replace

    from cockpit.model.session import LogViewState

    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        pane.feed(lines_of(parse_text("\n".join(decode_lines(30) + corpus_lines("002")) + "\n")))
        state = LogViewState(follow=False, filter="NCCL", search="pynccl", errors_only=True, hide_batches=True)
        pane.restore(state)
        await pilot.pause()
        saved = pane.view_state  # a paused view: with its place (the top line), for an exact reopen
        assert replace(saved, top_line=None, match_line=None) == state
        assert saved.top_line == pane.buffer.line_at(int(pane.view.scroll_y)).text[:200]
        assert pane.buffer.rows > 0
        assert all("NCCL" in pane.buffer.line_at(r).text for r in range(pane.buffer.rows))
        assert pane.keys.search_next()


# ----- errors, hostile text, the ring ------------------------------------------------------
async def test_an_error_burst_is_highlighted_with_its_labels(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    write(log, decode_lines(10), "w")
    app = feed_app(log)
    async with app.run_test(size=(120, 40)) as pilot:
        pane = app.query_one(LogPane)
        await until(pilot, lambda: len(pane.buffer) >= 10)
        burst = corpus_lines("002", "015", "013", "003") + CUDA_OOM
        write(log, burst)
        await until(pilot, lambda: len(pane.buffer) >= 10 + len(burst))
        labels = {pane.buffer.line_at(r).label for r in range(pane.buffer.rows)}
        joined = " ".join(labels)
        for label in ("cuda_oom", "nccl", "traceback"):
            assert label in joined, (label, labels)
        errors = [pane.buffer.line_at(r) for r in range(pane.buffer.rows) if pane.buffer.line_at(r).flags & ERROR]
        assert len(errors) > 10
        await until(pilot, lambda: pane.metrics.run_state == "error")
        rows = screen_rows(pane)
        assert any(" nccl " in row or " traceback " in row for row in rows)


async def test_a_hostile_line_is_drawn_inert() -> None:
    app = PaneApp()
    async with app.run_test(size=(160, 20)) as pilot:
        pane = app.query_one(LogPane)
        pane.feed(lines_of(parse_text(HOSTILE + "\n")))
        await pilot.pause()
        strip = pane.view.render_line(0)
        text = "".join(seg.text for seg in strip)
        for bad in ("\x1b", "\x07", "\x00", "\u202e", "\u202c"):
            assert bad not in text
        assert "[bold red]markup[/]" in text  # shown literally: never parsed as markup
        assert "␛]52;c;ZXZpbA==" in text and "␛]0;pwned" in text and "␀" in text
        assert "<U+202E>" in text
        assert all(seg.style is None or not seg.style.bold or "markup" not in seg.text for seg in strip)


async def test_the_ring_keeps_the_newest_lines() -> None:
    app = PaneApp(max_lines=50_000)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        lines = [f"[2025-03-01 12:00:00 TP0] line {i}" for i in range(60_000)]
        await through_pipeline(pane, *(text_batch(lines[k:k + 5000]) for k in range(0, 60_000, 5000)))
        await pilot.pause()
        assert len(pane.buffer) == 50_000
        assert pane.buffer.line_at(0).text.endswith("line 10000")
        assert pane.buffer.tail_texts(1)[0].endswith("line 59999")
        assert screen_rows(pane)[-1].endswith("line 59999")
        await pilot.press("E")  # filtered rows stay inside the ring too
        await pilot.press("E")
        assert pane.buffer.rows == 50_000


async def test_rotation_and_truncation_show_as_notes(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    write(log, decode_lines(5), "w")
    app = feed_app(log)
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await until(pilot, lambda: len(pane.buffer) >= 5)
        log.rename(tmp_path / "server.log.1")
        write(log, ["[2025-03-01 13:00:00 TP0] first line of the new file"], "w")
        await until(pilot, lambda: "first line of the new file" in pane.buffer.tail_texts(1)[0])
        assert any("rotated" in t for t in pane.buffer.tail_texts(3))


async def test_throughput_series_and_message() -> None:
    got: list[LogPane.ThroughputUpdated] = []

    class Hooked(PaneApp):
        def on_log_pane_throughput_updated(self, message: LogPane.ThroughputUpdated) -> None:
            got.append(message)

    app = Hooked()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await through_pipeline(pane, text_batch(decode_lines(10, dp=0) + decode_lines(10, dp=1)))
        await until(pilot, lambda: bool(got))
        series = pane.throughput_series()
        assert series and got[-1].points == tuple(series)
        assert max(v for _, v in series) > 1000  # two DP ranks summed
        assert pane.metrics.dp_ranks == 2


# ----- snapshots ----------------------------------------------------------------------------
def _snapshot_text() -> str:
    lines = (corpus_lines("023")[:12] + decode_lines(40, dp=0) + decode_lines(40, dp=1)
             + [HOSTILE] + decode_lines(10, 120) + CUDA_OOM)
    return "\n".join(lines) + "\n"


async def _fill(pilot) -> None:
    await pilot.pause()
    pane = pilot.app.query_one(LogPane)
    pane.set_state("tail gpu1:/var/log/sglang.log")
    await through_pipeline(pane, LogBatch(notes=["connected to gpu1 (42 ms)"], data=_snapshot_text().encode()))
    await pilot.pause()


def test_snapshot_80x24(snap_compare) -> None:
    """Header with source and 'follow'; run state and four sparklines; the end of the log with
    the OOM traceback in the error colour, its labels as badges; the hostile line literal."""
    assert snap_compare(PaneApp(), terminal_size=(80, 24), run_before=_fill)


def test_snapshot_120x40(snap_compare) -> None:
    """The same at 120x40: more of the log above the traceback, wider sparklines."""
    assert snap_compare(PaneApp(), terminal_size=(120, 40), run_before=_fill)


async def test_a_big_file_opened_at_its_end_shows_whole_log_figures_at_once() -> None:
    """The summary of the file's beginning (LogBatch.summary) reaches the strip directly,
    merged with what is folded: peaks over the whole log and its error labels."""
    app = PaneApp()
    async with app.run_test(size=(200, 30)) as pilot:
        pane = app.query_one(LogPane)
        before = {"prefill_lines": 10, "decode_lines": 900, "last_gen_throughput": 100.0,
                  "max_gen_throughput": 4321.0, "max_running_req": 77, "max_queue_req": 12345,
                  "errors": ["cuda_oom"], "bench": None, "ready": True}
        pipeline = LogPipeline(BatchFeed(text_batch(decode_lines(5)), LogBatch(summary=before)))
        stream = pipeline.stream()
        strip = pane.query_one(LogMetricsStrip)
        async for item in stream:  # the summary is shown when it comes, before the fold's figures
            pane.feed(item)
            if isinstance(item, SummaryBefore):
                await pilot.pause()
                first = strip.render().plain.splitlines()[0]
                assert "whole log: gen ↑4.3k tok/s run ↑77 req queue ↑12k req errors: cuda_oom" in first, first
        await pilot.pause()
        assert pane.metrics.summary.get("decode_lines", 0) >= 905
        assert "whole log: gen ↑4.3k tok/s run ↑77 req" in strip.render().plain.splitlines()[0]


async def test_a_preview_is_replaced_by_the_full_backlog(tmp_path: Path) -> None:
    """The last lines show at once; the whole backlog then takes their place: every line
    once, in order, and only the full batch is folded into the metrics."""
    lines = decode_lines(3000)
    everything = parse_text("\n".join(lines) + "\n")
    preview = parse_text("\n".join(lines[-200:]) + "\n")  # parsed here, as the feed does
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        pane.feed(lines_of(preview, preview=True))
        await pilot.pause()
        assert lines[-1].startswith(screen_rows(pane)[-1][:80])
        await through_pipeline(pane, text_batch(lines, notes=["connected"]))
        await pilot.pause()
        texts = pane.buffer.tail_texts(len(pane.buffer))
        assert texts == ["── connected ──", *lines]
        assert pane.buffer.total == len(lines) + 1
        assert pane.metrics.lines == len(everything)
        assert lines[-1].startswith(screen_rows(pane)[-1][:80])


async def test_cockpit_log_runs_the_pane_actions_from_the_palette() -> None:
    from tui_support import keys_for, palette_shows

    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.press(*keys_for("log: errors only"))
        await palette_shows(app, pilot, "log: errors only")
        await pilot.press("enter")
        await until(pilot, lambda: pane.view_state.errors_only)
        assert "errors only" in pane.border_title


async def test_a_stop_reads_stopped_at_once_until_a_new_run_starts() -> None:
    """cockpit stopped the server (a killed server writes no last line): the strip says
    `run 1 stopped` at once, a later snapshot of the same run does not bring `ready` back,
    and the next run in the log is shown as it is."""
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        strip = pane.query_one(LogMetricsStrip)
        await through_pipeline(pane, text_batch(corpus_lines("023")[:12] + decode_lines(10)))
        await until(pilot, lambda: pane.metrics.run_state == "ready")
        assert str(strip.render()).startswith("run 1 ready")
        pane.server_stopped()
        await pilot.pause()
        assert str(strip.render()).startswith("run 1 stopped"), str(strip.render())
        pane.show_metrics(MetricsSnapshot(run_index=1, run_state="ready"))  # the folder, late
        await pilot.pause()
        assert str(strip.render()).startswith("run 1 stopped")
        pane.show_metrics(MetricsSnapshot(run_index=2, run_state="ready"))
        await pilot.pause()
        assert str(strip.render()).startswith("run 2 ready")
