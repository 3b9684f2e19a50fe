"""`cockpit --demo`'s panes read one truth (issue 23): the server metrics pane says the running
requests the log strip says (they said 33 beside `running 1`), and the Goal tab's lxc line says
what the panes read there (it said "no GPUs" beside eight GPU rows)."""

from __future__ import annotations

import re

from tui_support import make_app, screen_text, until

from cockpit.demo.build import build_demo

LOG_RUNNING = re.compile(r"running (\d+) ↑")  # the log strip: "running 8 ↑8"
METRICS_RUNNING = re.compile(r"running (\d+)  queued")  # the metrics pane: "running 8  queued 0"


def host_row(text: str, host: str) -> str:
    """The Goal tab's line for `host` ("" if not shown), found at the pane's left border,
    light (│) or heavy (┃, while the pane has the keys)."""
    return next((line for line in text.splitlines() if re.search(f"[│┃] {host} ", line)), "")


async def test_the_demo_metrics_pane_says_the_log_strips_running(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path, sources = build_demo(speed=4)
    agreed: set[str] = set()
    app = make_app(path, sources=sources)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            def both_agree() -> bool:
                text = screen_text(app)
                log, metrics = LOG_RUNNING.search(text), METRICS_RUNNING.search(text)
                if log and metrics and log.group(1) == metrics.group(1):
                    agreed.add(log.group(1))
                return len(agreed) >= 3  # several load levels of the replayed sweep, not one coincidence

            await until(both_agree, pilot, timeout=60)
    finally:
        sources.run_stops()


async def test_the_demo_goal_tab_says_what_is_read_on_lxc(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path))
    path, sources = build_demo()
    app = make_app(path, sources=sources)
    try:
        async with app.run_test(size=(200, 50)) as pilot:
            await pilot.press("2")
            # The row starts at the Goal pane's border: heavy (┃) while the pane has the keys.
            await until(lambda: bool(host_row(screen_text(app), "lxc")), pilot, timeout=10)
            line = host_row(screen_text(app), "lxc")
            assert line and "no GPUs" not in line and "no log" not in line
            assert "8 GPUs: nvidia-smi replayed (demo)" in line and "log replayed" in line
            local = host_row(screen_text(app), "local")
            assert local and "no GPUs" in local  # the hosts nothing is read on stay as the file says
    finally:
        sources.run_stops()
