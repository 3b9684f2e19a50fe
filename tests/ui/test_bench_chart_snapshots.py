"""Snapshots of the Benchmarks chart with 1, 3 and 10 launch profiles (12 concurrencies each)
and of the compare screen, at 80x24 and 120x40. The docstring says what a reviewer should see."""

from __future__ import annotations

import pytest

from sweep_sessions import write_sweep_session
from tui_support import make_app

SIZES = [(80, 24), (120, 40)]


def _press(*keys: str):  # noqa: ANN202
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("profiles", [1, 3, 10])
def test_the_chart(snap_compare, tmp_path, profiles, size):
    """`4 v`: total tok/s against concurrency 1..2048 on a log2 axis (ticks thinned at 80
    columns), a coloured braille line per profile with dots at its points, a star in the
    winner's colour at each concurrency, the g1 target (>= 1000) as a green level; the legend
    on the right (name cut to fit, ★N = concurrencies won), the best runs underneath; the
    footer shows v, m, c and no row keys."""
    path = write_sweep_session(tmp_path / "sweeps.toml", profiles)
    assert snap_compare(make_app(path), terminal_size=size, run_before=_press("4", "v"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_chart_per_stream(snap_compare, tmp_path, size):
    """`m m`: per-stream tok/s falling as concurrency grows; g2 (>= 100 at 1..2) drawn only over
    concurrency 1 to 2, in red (not met)."""
    path = write_sweep_session(tmp_path / "sweeps.toml", 3)
    assert snap_compare(make_app(path), terminal_size=size, run_before=_press("4", "v", "m", "m"))


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_compare(snap_compare, tmp_path, size):
    """`c` on the chart: A l1 (working) and B l2 on a line each, the table titled "Compare total
    tok/s" with B vs A red below zero and green above, the launch diff (MoE backend changed) on
    the right; footer a, b, x, m, esc."""
    path = write_sweep_session(tmp_path / "sweeps.toml", 3)
    assert snap_compare(make_app(path), terminal_size=size, run_before=_press("4", "v", "c"))
