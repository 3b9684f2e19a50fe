"""Snapshots of the main screen at the four sizes people use, the Goal tab and the setup
forms, an alert in the header, and the Files detail view (example session, frozen clock).
The docstring says what a reviewer should see."""

from __future__ import annotations

import pytest

from tui_support import fill, make_app

from cockpit.model.session import Session
from cockpit.store.toml_store import save_session


def _keys(*keys: str, values: dict[str, str] | None = None):  # noqa: ANN202
    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press(*keys)
        await pilot.pause()
        if values:
            fill(pilot.app.screen, **values)
            await pilot.press("ctrl+s")
            await pilot.pause()

    return run_before


@pytest.mark.parametrize("size", [(60, 16), (80, 24), (120, 40), (200, 50)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_main_screen(snap_compare, example_path, size):
    """200x50 and 120x40: the board only as tall as its longest column (done, 7 tasks), the
    log and GPUs the rest. 80x24: every host in the header, the banner's what / next /
    fallback one line each, every tab. 60x16: tabs 2..0 by their keys, `? keys` at the end."""
    assert snap_compare(make_app(example_path), terminal_size=size)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=lambda s: f"{s[0]}x{s[1]}")
def test_the_goal_tab(snap_compare, example_path, size):
    """The goal, targets (met / not yet), instructions and hosts as one list; the goal's
    detail beside it; the footer offers e, t, i, H."""
    assert snap_compare(make_app(example_path), terminal_size=size, run_before=_keys("2"))


def test_a_new_target_with_a_range_the_model_refuses(snap_compare, example_path):
    """The target form: per-stream metric, min 4 above max 2 -> the model's message under
    'Conc. from'; the form stays open."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        await pilot.press("T")
        pilot.app.screen.query_one("#field-metric").value = "output_tok_s_per_stream"
        fill(pilot.app.screen, value="100", concurrency_min="4", concurrency_max="2")
        await pilot.press("ctrl+s")
        await pilot.pause()

    assert snap_compare(make_app(example_path), terminal_size=(80, 24), run_before=run_before)


def test_a_new_host_with_errors(snap_compare, example_path):
    """The host form: a name with a space and both a log path and a command, each message
    under its field."""
    assert snap_compare(make_app(example_path), terminal_size=(80, 24), run_before=_keys(
        "2", "H", values={"name": "gpu box", "log_path": "/var/log/sglang.log",
                          "log_command": "docker logs -f sglang"}))


def test_the_goal_and_instruction_forms(snap_compare, tmp_path):
    """A new session: the goal form (summary, model, hardware) over the Goal tab's empty
    list, which says what t, i and H add."""
    path = tmp_path / "new.toml"
    save_session(Session(title="day one"), path)
    assert snap_compare(make_app(path), terminal_size=(80, 24), run_before=_keys("2", "e"))


def test_an_alert_in_the_header(snap_compare, example_path):
    """A host that was connected dropped: '⚠ host lxc dropped: reconnecting in 8 s · ! shows'
    in the error colour, left of the hosts."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        pilot.app.feeds.set_host_state("lxc", "connected")
        pilot.app.feeds.set_host_state("lxc", "reconnecting in 8 s")
        await pilot.pause()

    assert snap_compare(make_app(example_path), terminal_size=(120, 40), run_before=run_before)


def test_the_files_detail_view(snap_compare, example_path):
    """Enter on the Files tab: the file's path, host, lines, state and what changed in full."""
    assert snap_compare(make_app(example_path), terminal_size=(80, 24), run_before=_keys("5", "enter"))
