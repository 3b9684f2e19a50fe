"""Benchmarks move the targets strip; profiles are marked and copied; the last action is one key."""

from __future__ import annotations

from tui_campaign import build_session
from tui_support import fill, keys_for, make_app, screen_text, until

from cockpit.store.toml_store import save_session
from cockpit.ui.screens.forms.records import BenchmarkForm, LastActionForm
from cockpit.ui.widgets.session.benchmarks_view import BenchTable


async def test_adding_a_benchmark_updates_the_targets_strip(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "✗ total tok/s ≥1,000 tok/s: 789 tok/s" in screen_text(app)
        await pilot.press("4", "a")
        form = app.screen
        assert isinstance(form, BenchmarkForm)
        await pilot.press(*keys_for("c=256 ep8"))
        form.query_one("#field-concurrency").value = "256"
        form.query_one("#field-total_tok_s").value = "fast"
        await pilot.press("ctrl+s")
        assert "a number, please" in screen_text(app)
        form.query_one("#field-total_tok_s").value = "1043.5"
        await pilot.press("ctrl+s")
        bench = app.editor.session.benchmarks[-1]
        assert (bench.id, bench.label, bench.concurrency, bench.total_tok_s, bench.profile) == (
            "b4", "c=256 ep8", 256, 1043.5, "l1")
        text = screen_text(app)
        assert "✓ total tok/s ≥1,000 tok/s: 1,044 tok/s" in text
        assert "★ g1" in text, "the new best row is marked"
        assert app.screen.query_one(BenchTable).selected_id() == "b4"


async def test_benchmarks_sort_and_delete(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("4")
        table = app.screen.query_one(BenchTable)
        order = lambda: [table.coordinate_to_cell_key((row, 0)).row_key.value for row in range(table.row_count)]  # noqa: E731
        assert order() == ["b1", "b2", "b3"]
        for _ in range(5):  # id, label, profile, conc, in/out -> total tok/s
            await pilot.press("s")
        assert "sorted by total tok/s ↑" in screen_text(app)
        assert order() == ["b2", "b1", "b3"]
        await pilot.press("S")
        assert order() == ["b3", "b1", "b2"]
        assert table.selected_id() == "b1", "the selection stays on its row through sorting"
        await pilot.press("up", "up", "d")
        assert [b.id for b in app.editor.session.benchmarks] == ["b1", "b2"]
        assert "✗ total tok/s ≥1,000 tok/s: 612 tok/s" in screen_text(app)


async def test_a_profile_is_marked_working_and_its_command_copied(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "down", "m")
        assert [p.status.value for p in app.editor.session.launch] == ["candidate", "working"]
        await pilot.press("up", "y")
        assert app.clipboard == ("NCCL_P2P_LEVEL=SYS python -m sglang.launch_server "
                                 "--model-path /models/GLM-5-NVFP4 --tp 8")


async def test_a_diff_base_shows_what_each_other_profile_changes(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "d")
        assert "◆ working   l1 tp8 baseline" in screen_text(app)
        assert "◆ The diff base" in screen_text(app) and "Command" in screen_text(app), "the base shows itself"
        await pilot.press("down")
        text = screen_text(app)
        assert "◆ l1 tp8 baseline" in text and "→ l2 tp8 + cuda graphs 128" in text
        assert "best total tok/s 612.4 → 788.9  (+28.8%)" in text
        assert "+ --cuda-graph-max-bs 128" in text and "- NCCL_P2P_LEVEL=SYS" in text
        assert "2 option(s) the same" in text
        await pilot.press("d")  # l2 becomes the base: l1 now reads as the change from it
        await pilot.press("up")
        text = screen_text(app)
        assert "◆ l2 tp8 + cuda graphs 128" in text and "→ l1 tp8 baseline" in text
        assert "- --cuda-graph-max-bs 128" in text
        await pilot.press("down", "d")  # d on the base: off
        assert "◆" not in screen_text(app)
        await pilot.press("up")
        assert "→" not in screen_text(app) and "Command" in screen_text(app)


async def test_the_diff_masks_keys_and_tokens_as_the_exports_do(tmp_path):
    session = build_session()
    session.launch[1] = session.launch[1].model_copy(update={
        "command": session.launch[1].command + " --api-key sk-live-999 --max-total-tokens 4096",
        "env": {"HF_TOKEN": "hf_live_abc123"},
    })
    path = tmp_path / "keyed.toml"
    save_session(session, path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "d", "down")
        text = screen_text(app)
        assert "→ l2 tp8 + cuda graphs 128" in text
        assert "+ --api-key [REDACTED]" in text and "+ HF_TOKEN=[REDACTED]" in text
        assert "+ --max-total-tokens 4096" in text
        assert "sk-live-999" not in text and "hf_live_abc123" not in text


async def test_one_key_sets_the_last_action_and_the_banner_shows_it(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "Where you left off" in screen_text(app)
        await pilot.press("L")
        form = app.screen
        assert isinstance(form, LastActionForm)
        assert form.query_one("#field-text").value.startswith("Benchmarked c=128")
        form.query_one("#field-text").value = "Pinned NCCL to node 0"
        form.query_one("#field-next_step").value = "rerun c=128"
        await pilot.press("ctrl+s")
        last = app.editor.session.last_action
        assert (last.text, last.next_step, last.fallback) == (
            "Pinned NCCL to node 0", "rerun c=128", "Go back to l1 (tp8 baseline)")
        await until(lambda: "Pinned NCCL to node 0" in screen_text(app), pilot)
        await pilot.press("x")
        assert "Where you left off" not in screen_text(app)


async def test_the_handoff_tab_renders_and_follows_edits(session_path):
    """The document is made (in a thread) when the tab is first shown; an edit shows in it the
    next time the tab is shown."""
    from cockpit.ui.widgets.session.text_views import HandoffView

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("0")
        view = app.screen.query_one(HandoffView)
        await until(lambda: view.shown_whole and "1. Goal" in screen_text(app), pilot)
        app.controller.apply(lambda e: e.set_last_action("Relaunched with EP=8", "Benchmark it"))
        await pilot.press("1", "0")
        await until(lambda: view.shown_whole and "Relaunched with EP=8" in screen_text(app), pilot)


async def test_r_in_the_packages_tab_checks_drift_on_this_machine(tmp_path):
    """Real probe with this interpreter (the working profile names it): pytest as recorded,
    hypothesis recorded at another version."""
    import sys
    from importlib import metadata

    from cockpit.model.session import LaunchProfile, Package, Session
    from cockpit.store.toml_store import save_session

    path = tmp_path / "s.toml"
    save_session(Session(
        packages=[Package(id="p1", name="pytest", version=metadata.version("pytest")),
                  Package(id="p2", name="hypothesis", version="0.0.1")],
        launch=[LaunchProfile(id="l1", name="here", status="working",
                              command=f"{sys.executable} -m sglang.launch_server --tp 1")]), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("6")
        assert "Check drift" in screen_text(app)
        before = screen_text(app)
        await pilot.press("r")
        assert "r compares them with what the hosts run now" in before  # the hint, until a check
        await until(lambda: "Drift:" in screen_text(app), pilot, timeout=30)
        text = screen_text(app)
        assert "Drift: 1 changed, 1 same · checked 09:30 · local: " in text  # then the python (a long path)
        rows = {line.split()[0]: line.split() for line in text.splitlines() if line.strip().startswith("p")}
        assert rows["p1"][-2:] == [metadata.version("pytest"), "same"]
        assert rows["p2"][-2:] == [metadata.version("hypothesis"), "changed"]


async def test_the_last_tab_shows_the_timeline_with_a_drop_and_what_came_before(session_path):
    """The fixture's c=64 workload runs again on l2 after a note: 540 is 11.8% below b1."""
    from cockpit.model.session import Benchmark
    from cockpit.store.toml_store import load_session, save_session

    session = load_session(session_path)
    session.benchmarks.append(Benchmark(id="b4", label="c=64 again", profile="l2", concurrency=64, input_len=1024,
                                        output_len=1024, total_tok_s=540.0, when=session.benchmarks[2].when))
    save_session(session, session_path)
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("8")
        text = screen_text(app)
        assert "Timeline (newest first)" in text
        assert "b4 c=64 again: 540 total tok/s (c=64, profile l2)" in text
        assert "▼ 11.8% below b1; changed since b1:" in text
        assert "launch l1 -> l2" in text and "+ --cuda-graph-max-bs 128" in text
        await pilot.press("1")
        app.controller.apply(lambda ed: ed.add_note("pinned NCCL to node 0"))  # a new edit shows at the top
        await pilot.press("8")
        assert "note               pinned NCCL to node 0" in screen_text(app)


async def test_packages_files_and_profiles_are_added_edited_and_deleted_from_the_keyboard(session_path):
    from cockpit.ui.screens.forms.records import RecordForm

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        before = [p.id for p in app.editor.session.packages]
        await pilot.press("6", "a")
        form = app.screen
        assert isinstance(form, RecordForm) and "New package" in screen_text(app)
        await pilot.press("ctrl+s")
        assert "a package needs a name" in screen_text(app)
        fill(form, name="flashinfer", version="0.6.3", host="gpu9")
        await pilot.press("ctrl+s")
        assert "unknown host 'gpu9' (known: lxc)" in screen_text(app)
        fill(form, host="")
        await pilot.press("ctrl+s")
        added = app.editor.session.packages[-1]
        assert (added.id, added.name, added.version) == (f"p{len(before) + 1}", "flashinfer", "0.6.3") and added.captured
        assert "flashinfer" in screen_text(app)
        await pilot.press("e")
        app.screen.query_one("#field-version").value = "0.6.4"
        await pilot.press("ctrl+s")
        assert app.editor.session.packages[-1].version == "0.6.4" and "0.6.4" in screen_text(app)
        await pilot.press("d")
        assert [p.id for p in app.editor.session.packages] == before
        await pilot.press("u")
        assert app.editor.session.packages[-1].version == "0.6.4"

        await pilot.press("5", "a")
        fill(app.screen, path="/opt/sglang/python/sglang/srt/layers/moe.py", change="skip the fused path on SM120")
        await pilot.press("ctrl+s")
        new_file = app.editor.session.files[-1]
        assert (new_file.path.endswith("moe.py"), new_file.state.value, new_file.change) == (
            True, "applied", "skip the fused path on SM120")
        assert "skip the fused path" in screen_text(app)  # (the column may cut the end)

        await pilot.press("7", "a")
        fill(app.screen, name="tp8 + eagle3", env="SGLANG_X=1\nnot an assignment",
             command="python -m sglang.launch_server --tp 8 --speculative-algorithm EAGLE3")
        await pilot.press("ctrl+s")
        assert "KEY=value per line (not 'not an assignment')" in screen_text(app)
        fill(app.screen, env="SGLANG_X=1")
        await pilot.press("ctrl+s")
        profile = app.editor.session.launch[-1]
        assert (profile.name, profile.env, profile.status.value) == ("tp8 + eagle3", {"SGLANG_X": "1"}, "candidate")
        await pilot.pause()
        text = screen_text(app)
        assert "candidate l3 tp8 + eagle3" in text and "--speculative-algorithm" in text, "the new one is selected"
        kinds = [e.kind for e in app.editor.session.journal]
        assert {"package.added", "package.edited", "file.added", "launch.added"} <= set(kinds)  # (undo took the delete back)


async def test_the_diff_base_is_saved_with_the_view_and_comes_back(session_path):
    from cockpit.store.toml_store import load_session

    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("7", "d", "ctrl+s")
    assert load_session(session_path).ui.selection["launch.diff_base"] == "l1"
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("down")
        text = screen_text(app)
        assert "◆ working   l1 tp8 baseline" in text and "→ l2 tp8 + cuda graphs 128" in text
