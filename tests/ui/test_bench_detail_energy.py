"""A benchmark's record shows its audited energy (issue 35, Build 3): the main run's joules by
integral and by the GPUs' counter with their check, and the steady window's own figures, each
with its unit; a check that names its GPU source goes through the sanitizer."""

from __future__ import annotations

from tui_support import make_app, screen_text, until

from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.screens.bench_detail import BenchDetailScreen
from cockpit.ui.widgets.session.benchmarks_view import BenchTable

ENERGY = {
    "power_mean_w": 1210.4, "energy_j": 72_624.0, "energy_counter_j": 72_410.5,
    "energy_check": "nvml every 1 s, 1.00 s interval, 98% covered, integral +0.3% vs energy counter",
    "energy_flagged": False, "steady_from": "server running count", "steady_s": 41.25, "steady_power_w": 1290.0,
    "steady_j": 53_212.5, "steady_counter_j": 53_100.0,
    "steady_check": "nvml every 1 s\x1b[31m, 1.00 s interval, 80% covered, integral +0.2% vs energy counter; "
                    "flagged: samples cover 80% of the window (< 90%)",
    "steady_flagged": True,
}


async def test_the_record_shows_both_windows_with_their_checks(session_path):
    session = load_session(session_path)
    session.benchmarks[1] = session.benchmarks[1].model_copy(update=ENERGY)
    save_session(session, session_path)
    app = make_app(session_path)
    async with app.run_test(size=(120, 60)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        table = app.screen.query_one(BenchTable)
        await pilot.click(table, offset=(2, 2), times=2)  # b2
        await until(lambda: isinstance(app.screen, BenchDetailScreen), pilot)
        text = screen_text(app)
    lines = [" ".join(line.replace("│", " ").replace("▎", " ").split()) for line in text.splitlines()]
    shown = " ".join(lines)  # a long check wraps in the dialog
    for said in ("energy J (∫ W dt) 72,624.0", "energy counter J 72,410.5",
                 "check nvml every 1 s, 1.00 s interval, 98% covered, integral +0.3% vs energy counter",
                 "Power in steady state", "window from server running count", "window s 41.25", "mean W 1,290",
                 "energy J (∫ W dt) 53,212.5", "energy counter J 53,100.0"):
        assert said in shown, (said, text)
    # the flagged steady check is shown whole but for the escape byte, which never reaches the terminal
    assert "\x1b" not in text
    assert "flagged: samples cover 80% of the window" in shown
