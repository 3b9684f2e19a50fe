"""The log pane's metrics strip keeps one label and one scale per cell as the numbers grow."""

from __future__ import annotations

from textual.app import App, ComposeResult

from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.ui.widgets.log.log_metrics_strip import LogMetricsStrip


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


async def test_the_gen_label_stays_put_as_throughput_passes_1000_at_80_and_120_columns():
    for width, label in ((80, "gen "), (120, "gen tok/s ")):
        small, big = await heads_at(width, snapshot(789, 789), snapshot(1000, 1000))
        assert small.startswith(f"{label}789 ↑789"), small
        assert big.startswith(f"{label}1.0k ↑1.0k"), big


async def test_current_and_peak_share_one_scale():
    (head,) = await heads_at(120, snapshot(789, 1234))
    assert head.startswith("gen tok/s 0.8k ↑1.2k"), head
    (head,) = await heads_at(120, snapshot(9500, 12_345))
    assert head.startswith("gen tok/s 10k ↑12k"), head
