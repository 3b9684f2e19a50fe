"""The log pane for days: wrap, g / G, half-screen jumps, the match counter, one key to
clear, `?` in `cockpit log`, and "record this result" on a bench_serving block."""

from __future__ import annotations

from test_log_pane import PaneApp, decode_lines, screen_rows, until

from tui_support import make_app, screen_text

from cockpit.live.log.items import lines_of
from cockpit.parse.log.sglang_log import parse_text
from cockpit.store.toml_store import load_session
from cockpit.ui.screens.forms.records import BenchmarkForm
from cockpit.ui.screens.help import HelpScreen
from cockpit.ui.widgets.log.pane import LogPane

# A decode line ends with the figure a person reads it for: cut at 100 columns, wrapped not.
LONG = ("[2025-03-01 12:00:00 DP3 TP3] Decode batch. #running-req: 64, #token: 58123, token usage: 0.31, "
        "cuda graph: True, gen throughput (token/s): 4321.09, #queue-req: 0, tail-marker-xyz")

BENCH_BLOCK = """\
[2025-03-01 12:00:00 TP0] Decode batch. #running-req: 1, #token: 100, token usage: 0.01, gen throughput (token/s): 50.00, #queue-req: 0
============ Serving Benchmark Result ============
Backend:                                 sglang
Traffic request rate:                    inf
Max request concurrency:                 64
Successful requests:                     640
Benchmark duration (s):                  170.41
Total input tokens:                      655360
Total generated tokens:                  655360
Total generated tokens (retokenized):    655000
Request throughput (req/s):              3.76
Input token throughput (tok/s):          3845.80
Output token throughput (tok/s):         3845.80
Total token throughput (tok/s):          7691.60
Concurrency:                             63.12
----------------End-to-End Latency----------------
Mean E2E Latency (ms):                   16890.11
Median E2E Latency (ms):                 16500.00
---------------Time to First Token----------------
Mean TTFT (ms):                          812.40
Median TTFT (ms):                        700.10
P99 TTFT (ms):                           2301.70
---------------Inter-Token Latency----------------
Mean ITL (ms):                           15.72
Median ITL (ms):                         15.01
P99 ITL (ms):                            40.33
==================================================
"""  # noqa: E501 - a real log line, whole


def feed_text(pane: LogPane, lines: list[str]) -> None:
    pane.feed(lines_of(parse_text("\n".join(lines) + "\n")))


# ----- wrap ------------------------------------------------------------------------------
async def test_wrap_shows_the_end_of_a_long_line_and_follows_the_end() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, decode_lines(60) + [LONG])
        await until(pilot, lambda: pane.buffer.rows == 61)
        assert not any("tail-marker-xyz" in row for row in screen_rows(pane)), "cut at the edge"
        await pilot.press("W")
        await pilot.pause()
        assert pane.view_state.wrap and "wrap" in str(pane.border_title)
        rows = screen_rows(pane)
        assert rows[-1].endswith("tail-marker-xyz"), "the long line's end on the bottom row"
        assert rows[-2].startswith("[2025-03-01 12:00:00 DP3 TP3] Decode batch.")
        feed_text(pane, ["[2025-03-01 12:09:00 TP0] one more line"])
        await until(pilot, lambda: screen_rows(pane)[-1].endswith("one more line"))
        await pilot.press("W")
        await pilot.pause()
        assert not pane.view_state.wrap
        assert not any("tail-marker-xyz" in row for row in screen_rows(pane))


async def test_wrap_is_saved_in_the_session_and_restored_on_reopen(session_path) -> None:
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        app.main_screen.focus_pane("log")
        await pilot.press("W")
        assert app.main_screen.query_one(LogPane).view_state.wrap
        await pilot.press("q")  # no edits: the view is saved on the way out
    assert load_session(session_path).ui.log.wrap is True

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        await until(pilot, lambda: pane.view.wrap)
        assert pane.view_state.wrap
        feed_text(pane, [LONG])
        await until(pilot, lambda: any(row.endswith("tail-marker-xyz") for row in screen_rows(pane)))


# ----- moving ----------------------------------------------------------------------------
async def test_g_goes_to_the_first_line_and_G_back_to_following_the_end() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        lines = decode_lines(300)
        feed_text(pane, lines)
        await until(pilot, lambda: pane.buffer.rows == 300)
        assert lines[-1].startswith(screen_rows(pane)[-1])
        await pilot.press("g")
        assert pane.view_state.follow is False
        assert lines[0].startswith(screen_rows(pane)[0])
        await pilot.press("G")
        await pilot.pause()
        assert pane.view_state.follow is True
        assert lines[-1].startswith(screen_rows(pane)[-1])


async def test_left_and_right_move_by_half_the_pane() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, [LONG * 2] + decode_lines(5))
        await until(pilot, lambda: pane.buffer.rows == 6)
        view = pane.view
        half = view.scrollable_content_region.width // 2
        assert half > 40
        await pilot.press("right")
        await pilot.pause()
        assert view.scroll_x == half
        await pilot.press("l")
        await pilot.pause()
        assert view.scroll_x == 2 * half
        assert screen_rows(pane)[0].startswith(LONG[2 * half:2 * half + 20])
        await pilot.press("h")
        await pilot.pause()
        assert view.scroll_x == half


# ----- search and filter ------------------------------------------------------------------
async def test_the_search_counts_matches_3_of_41() -> None:
    app = PaneApp()
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogPane)
        lines = decode_lines(400)
        for k in range(41):
            lines[5 + 9 * k] = f"[2025-03-01 12:00:00 TP0] needle number {k + 1}"
        feed_text(pane, lines)
        await until(pilot, lambda: pane.buffer.rows == 400)
        await pilot.press("slash", *"needle", "enter")
        await pilot.pause()
        assert "search: needle 41 of 41" in str(pane.border_title), "the newest match first"
        await pilot.press("n")  # past the newest: round to the first
        assert "search: needle 1 of 41" in str(pane.border_title)
        await pilot.press("n", "n")
        assert "search: needle 3 of 41" in str(pane.border_title)
        assert pane.buffer.line_at(pane.view.current_row).text.endswith("needle number 3")
        feed_text(pane, ["[2025-03-01 12:30:00 TP0] needle number 42"])
        await until(pilot, lambda: "3 of 42" in str(pane.border_title))
        await pilot.press("backslash", *"number [12]", "enter")  # a filter narrows what is counted
        await pilot.pause()
        # needle number 1, 2, 10-29: 22 lines shown, all of them matches, none current yet
        assert pane.buffer.rows == 22
        assert "search: needle 22 matches" in str(pane.border_title)


async def test_one_key_clears_the_filter_the_search_and_errors_only() -> None:
    app = PaneApp()
    async with app.run_test(size=(120, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, decode_lines(100))
        await until(pilot, lambda: pane.buffer.rows == 100)
        await pilot.press("backslash", *"queue-req: 3", "enter")
        await pilot.press("slash", *"token", "enter")
        await pilot.press("E", "b")
        await pilot.pause()
        assert pane.buffer.rows < 100
        await pilot.press("c")
        await pilot.pause()
        state = pane.view_state
        assert (state.filter, state.search, state.errors_only) == (None, None, False)
        assert state.hide_batches, "hiding batch lines is a standing choice, not cleared"
        await pilot.press("b")
        assert pane.buffer.rows == 100
        assert str(pane.border_title) == "Server log · paused"


# ----- cockpit log --------------------------------------------------------------------------
async def test_question_mark_shows_the_log_keys_in_cockpit_log() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        everything = app.screen._everything()
        from rich.console import Console

        console = Console(width=100, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
        console.print(everything)
        text = console.export_text()
        assert "Toggle wrap" in text and "Clear filter" in text and "Quit cockpit log" in text
        assert "tasks" not in text and "Mark working" not in text, "only what cockpit log has"
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_record_in_cockpit_log_says_where_to_record() -> None:
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        feed_text(pane, BENCH_BLOCK.splitlines())
        await until(pilot, lambda: pane.buffer.rows > 20)
        await pilot.press("r")
        await pilot.pause()
        assert any("no session" in n.message for n in app._notifications)


# ----- record this result -------------------------------------------------------------------
async def test_r_on_a_bench_block_in_the_log_fills_the_benchmark_form(session_path) -> None:
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        feed_text(pane, BENCH_BLOCK.splitlines() + decode_lines(5, 100))
        await until(pilot, lambda: pane.buffer.rows > 30)
        app.main_screen.focus_pane("log")
        await pilot.press("r")
        await until(pilot, lambda: isinstance(app.screen, BenchmarkForm))
        form = app.screen
        values = {name: form.query_one(f"#field-{name}").value for name in (
            "label", "concurrency", "input_len", "output_len", "total_tok_s", "output_tok_s", "ttft_ms",
            "itl_ms", "ttft_p99_ms", "duration_s")}
        assert values == {"label": "c=64 1024/1024", "concurrency": "64", "input_len": "1024",
                          "output_len": "1024", "total_tok_s": "7691.6", "output_tok_s": "3845.8",
                          "ttft_ms": "812.4", "itl_ms": "15.72", "ttft_p99_ms": "2301.7", "duration_s": "170.41"}
        assert form.query_one("#field-profile").value == "l1", "the working profile"
        await pilot.press("ctrl+s")
        await pilot.pause()
        bench = app.editor.session.benchmarks[-1]
        assert (bench.id, bench.profile, bench.concurrency, bench.total_tok_s, bench.itl_p99_ms) == (
            "b4", "l1", 64, 7691.6, 40.33)
        # b1 ran the same point (l1, 1024/1024, c=64): the target reads their median, not the new best run
        assert "✓ total tok/s ≥1,000 tok/s: 4,152 tok/s median of 2 [612–7,692]" in screen_text(app)


async def test_r_with_no_bench_block_says_so(session_path) -> None:
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        pane = app.main_screen.query_one(LogPane)
        feed_text(pane, decode_lines(20))
        await until(pilot, lambda: pane.buffer.rows == 20)
        app.main_screen.focus_pane("log")
        await pilot.press("r")
        await pilot.pause()
        assert not isinstance(app.screen, BenchmarkForm)
        assert any("No 'Serving Benchmark Result' block" in n.message for n in app._notifications)


# ----- snapshot -----------------------------------------------------------------------------
def test_snapshot_wrapped_with_a_search_counted(snap_compare) -> None:
    """`cockpit log` at 100x30 with wrap on: each long decode line on two rows, the last one's
    `tail-marker-xyz` on the bottom row; the border reads "paused · search: needle 3 of 5 ·
    wrap" and the third needle line is marked current."""

    async def run_before(pilot) -> None:  # noqa: ANN001
        await pilot.pause()
        pane = pilot.app.query_one(LogPane)
        lines = decode_lines(30)
        for k in range(5):
            lines[3 + 6 * k] = f"[2025-03-01 12:00:00 TP0] needle number {k + 1}"
        feed_text(pane, lines + [LONG])
        await until(pilot, lambda: pane.buffer.rows == 31)
        await pilot.press("W", "slash", *"needle", "enter", "n", "n", "n")
        await pilot.pause()

    assert snap_compare(PaneApp(), terminal_size=(100, 30), run_before=run_before)


# ----- polls -----------------------------------------------------------------------------
POLLS = [f'[2026-12-08 00:36:{s:02d}] INFO:     127.0.0.1:{38000 + s} - "GET /metrics HTTP/1.1" 200 OK'
         for s in range(40)]


async def test_metrics_and_health_polls_are_hidden_until_p_and_the_title_says_so() -> None:
    """The sandbox's pane was 7,650 lines of `GET /metrics` (its GPU feed polls every 0.1 s):
    poll access lines are hidden by default, said in the border, and `p` shows them."""
    app = PaneApp()
    async with app.run_test(size=(100, 30)) as pilot:
        pane = app.query_one(LogPane)
        pane.focus()
        served = '[2026-12-08 00:36:41] INFO:     127.0.0.1:39000 - "POST /v1/completions HTTP/1.1" 200 OK'
        health = '[2026-12-08 00:36:42] INFO:     127.0.0.1:39001 - "GET /health HTTP/1.1" 200 OK'
        feed_text(pane, ["[2026-12-08 00:36:00] server line before", *POLLS, served, health, decode_lines(1)[0]])
        await until(pilot, lambda: "polls hidden (p)" in screen_text(app))
        text = screen_text(app)
        assert "GET /metrics" not in text and "GET /health" not in text
        assert "server line before" in text and "POST /v1/completions" in text and "Decode batch" in text
        assert "3 of 44 lines" in text, text
        await pilot.press("p")
        await until(pilot, lambda: "GET /metrics" in screen_text(app))
        text = screen_text(app)
        assert "polls hidden" not in text and "GET /health" in text and "44 lines" in text
        assert pane.view_state.show_polls  # saved with the session's view
        await pilot.press("p")
        await until(pilot, lambda: "GET /metrics" not in screen_text(app))


def test_a_log_with_no_polls_keeps_the_unfiltered_view() -> None:
    from cockpit.ui.widgets.log.buffer import LogBuffer

    buf = LogBuffer()
    buf.add_events(parse_text("\n".join(decode_lines(5)) + "\n"))
    assert buf.visible is None and not buf.filtered and buf.rows == 5
    buf.add_events(parse_text("\n".join(POLLS[:3]) + "\n"))
    assert buf.filtered and buf.rows == 5 and len(buf) == 8  # the first poll turned the view filtered
    buf.set_filter(None, False, False, hide_polls=False)
    assert buf.rows == 8
