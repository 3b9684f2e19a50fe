"""The log pane's metrics strip keeps one label and one scale per cell as the numbers grow, and
words each figure with the one formatter (model/figures.py): the throughput with its unit at any
width, the KV usage as a share, no more than one decimal, and what the peak and bars cover."""

from __future__ import annotations

from textual.app import App, ComposeResult

from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.ui.widgets.log.metrics_strip import LogMetricsStrip


class StripApp(App[None]):
    def compose(self) -> ComposeResult:
        yield LogMetricsStrip()


def snapshot(gen: float, gen_peak: float) -> MetricsSnapshot:
    return MetricsSnapshot(current={"gen_throughput": gen, "running_req": 12, "queue_req": 0, "token_usage": 0.4},
                           peak={"gen_throughput": gen_peak, "running_req": 40, "queue_req": 3, "token_usage": 0.9},
                           run_index=1, run_state="ready")


async def heads_at(width: int, *snaps: MetricsSnapshot) -> list[str]:
    app = StripApp()
    out = []
    async with app.run_test(size=(width, 5)) as pilot:
        strip = app.query_one(LogMetricsStrip)
        for snap in snaps:
            strip.show(snap)
            await pilot.pause()
            out.append(strip.render().plain.splitlines()[1])
    return out


async def test_the_gen_label_stays_put_as_throughput_passes_1000_at_60_80_and_120_columns():
    for width, label in ((60, "tok/s "), (78, "gen tok/s "), (80, "gen tok/s "), (120, "gen tok/s ")):
        small, big = await heads_at(width, snapshot(789, 789), snapshot(1000, 1000))
        assert small.startswith(f"{label}789 ↑789"), small
        assert big.startswith(f"{label}1.0k ↑1.0k"), big


async def test_current_and_peak_share_one_scale():
    (head,) = await heads_at(120, snapshot(789, 1234))
    assert head.startswith("gen tok/s 0.8k ↑1.2k"), head
    (head,) = await heads_at(120, snapshot(9500, 12_345))
    assert head.startswith("gen tok/s 10k ↑12k"), head


async def test_each_figure_says_its_unit_and_no_more_than_one_decimal_and_the_window_is_named():
    snap = MetricsSnapshot(current={"gen_throughput": 12.345, "running_req": 3, "queue_req": 0, "token_usage": 0.4444},
                           peak={"gen_throughput": 4445.01, "running_req": 40, "queue_req": 3, "token_usage": 0.9},
                           run_index=1, run_state="ready", window_s=900)
    app = StripApp()
    async with app.run_test(size=(78, 5)) as pilot:  # the log pane's width at 80x24
        strip = app.query_one(LogMetricsStrip)
        strip.show(snap)
        strip.show_before({"max_gen_throughput": 4445.01, "max_running_req": 77, "max_queue_req": 12})
        await pilot.pause()
        first, heads = strip.render().plain.splitlines()[:2]
        await pilot.resize_terminal(200, 5)
        await pilot.pause()
        wide = strip.render().plain.splitlines()[0]
    assert "whole log: gen ↑4.4k tok/s run ↑77 req queue ↑12 req" in wide, wide
    cells = heads.split()
    assert cells[:5] == ["gen", "tok/s", "12.3", "↑4.4k", "running"], heads  # never 4445.01, nor 12 as 0.0k
    assert "kv 44% ↑90%" in heads, heads
    assert "running 3 ↑40" in heads and "queued 0 ↑3" in heads, heads
    assert first.startswith("run 1 ready · ↑ peak of the lines read · bars: 15 min of log time · "), first



async def test_below_1000_the_throughput_keeps_one_decimal_at_most():
    (head,) = await heads_at(120, snapshot(12.345, 48.25))
    assert head.startswith("gen tok/s 12.3 ↑48.2 "), head
