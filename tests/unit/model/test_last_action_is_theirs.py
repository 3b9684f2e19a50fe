"""The person's last action is theirs: automatic steps go beside it, never over it."""

from __future__ import annotations

from pathlib import Path

from cockpit.control.session_controller import SessionController
from cockpit.live.experiment.launch_lifecycle import LaunchOutcome, apply_outcome
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.merge import merge_sessions
from cockpit.model.session import LAST_ACTIONS_KEPT, LaunchProfile, Session, Sweep
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session, save_session

NEXT = "pin NCCL to NUMA node 0 and rerun c=128"
FALLBACK = "go back to l1, the tp8 baseline"


def _session() -> Session:
    return Session(launch=[LaunchProfile(id="l1", name="tp8", command="python -m sglang.launch_server --tp 8"),
                           LaunchProfile(id="l2", name="tp4", command="python -m sglang.launch_server --tp 4",
                                         status="working")],
                   sweeps=[Sweep(id="s1", name="chat")])


def _outcome(kind: str, **more: object) -> LaunchOutcome:
    return LaunchOutcome(kind=kind, profile_id="l1", profile_name="tp8", host="lxc", elapsed_s=42.0,  # type: ignore[arg-type]
                         phase="loading" if kind == "crashed" else "ready", log_path="/tmp/l1.log", **more)  # type: ignore[arg-type]


def _automatic_steps(editor: SessionEditor) -> None:
    """What the loop writes on its own: a start, a ready, a crash, a sweep's end."""
    editor.record_activity("started l1 (tp8) on lxc, pid 4242", next_step="wait for ready")
    apply_outcome(editor, _outcome("ready"))
    apply_outcome(editor, _outcome("crashed", error_label="CUDA out of memory", exit_code=1))
    editor.record_activity("sweep s1 (chat) on l1: 4 of 4 points recorded",
                           next_step="compare with the best profile (Benchmarks tab)")


def test_automatic_steps_never_replace_the_persons_next_step_or_fallback(tmp_path: Path):
    path = tmp_path / "campaign.toml"
    save_session(_session(), path)
    controller = SessionController(load_session(path), path)
    controller.apply(lambda e: e.set_last_action("benchmarked c=128", NEXT, FALLBACK))
    assert controller.save().saved
    for step in ("started", "ready", "crashed", "sweep"):
        controller.apply({
            "started": lambda e: e.record_activity("started l1 (tp8) on lxc, pid 4242", next_step="wait for ready"),
            "ready": lambda e: apply_outcome(e, _outcome("ready")),
            "crashed": lambda e: apply_outcome(e, _outcome("crashed", error_label="CUDA out of memory")),
            "sweep": lambda e: e.record_activity("sweep s1 (chat) on l1: 4 of 4 points recorded"),
        }[step])
        assert controller.save().saved
        for file in (path, path.with_name(path.name + ".bak")):
            text = file.read_text()
            assert NEXT in text and FALLBACK in text, (step, file.name)
    last = load_session(path).last_action
    assert (last.text, last.next_step, last.fallback, last.by) == ("benchmarked c=128", NEXT, FALLBACK, None)
    assert last.activity.text == "sweep s1 (chat) on l1: 4 of 4 points recorded"


def test_the_crash_says_its_fix_and_fallback_beside_the_persons_words():
    editor = SessionEditor(_session())
    editor.set_last_action("benchmarked c=128", NEXT, FALLBACK)
    apply_outcome(editor, _outcome("crashed", error_label="CUDA out of memory"))
    last = editor.session.last_action
    assert (last.next_step, last.fallback) == (NEXT, FALLBACK)
    assert last.activity.next_step == "fix profile l1 (see /tmp/l1.log)"
    assert last.activity.fallback.startswith("start the working profile l2")


def test_with_no_words_of_a_person_the_automatic_step_is_the_last_action_and_a_person_replaces_it():
    editor = SessionEditor(_session())
    _automatic_steps(editor)
    assert editor.session.last_action.by == "auto"
    assert editor.session.last_action.text.startswith("sweep s1")
    editor.set_last_action("read the crash log", NEXT, FALLBACK)
    _automatic_steps(editor)
    last = editor.session.last_action
    assert (last.text, last.next_step, last.fallback, last.by) == ("read the crash log", NEXT, FALLBACK, None)
    earlier = [a.text for a in editor.session.last_actions]
    assert earlier[-1].startswith("sweep s1") and len(earlier) == 4, "each automatic one it replaced is kept"


def test_undo_brings_back_the_last_action_a_new_one_replaced():
    editor = SessionEditor(_session())
    editor.set_last_action("first", "next one", "fall back one")
    editor.set_last_action("second", "next two")
    assert [a.text for a in editor.session.last_actions] == ["first"]
    editor.undo()
    last = editor.session.last_action
    assert (last.text, last.next_step, last.fallback) == ("first", "next one", "fall back one")
    assert editor.session.last_actions == []


def test_the_history_is_bounded():
    editor = SessionEditor(_session())
    for n in range(LAST_ACTIONS_KEPT + 5):
        editor.set_last_action(f"step {n}")
    assert len(editor.session.last_actions) == LAST_ACTIONS_KEPT
    assert editor.session.last_actions[-1].text == f"step {LAST_ACTIONS_KEPT + 3}"


def test_a_sweep_writer_merging_its_automatic_step_keeps_the_words_another_writer_saved():
    base = SessionEditor(_session())
    base.record_activity("started l1", next_step="wait for ready")
    sweep, tui = SessionEditor(base.session), SessionEditor(base.session)
    tui.set_last_action("pinned NCCL", NEXT, FALLBACK)
    sweep.record_activity("sweep s1 (chat) on l1: 4 of 4 points recorded")  # replaces the automatic one it read
    merged = merge_sessions(base.session, sweep.session, tui.session).session
    last = merged.last_action
    assert (last.text, last.next_step, last.fallback) == ("pinned NCCL", NEXT, FALLBACK)
    assert last.activity.text == "sweep s1 (chat) on l1: 4 of 4 points recorded"


def test_an_older_file_loads_and_its_words_are_treated_as_a_persons(tmp_path: Path):
    path = tmp_path / "old.toml"
    path.write_text('schema_version = 1\ntitle = "old"\n\n[last_action]\ntext = "did it"\n'
                    'next_step = "do more"\nfallback = "undo it"\n')
    editor = SessionEditor(load_session(path))
    _automatic_steps(editor)
    assert (editor.session.last_action.next_step, editor.session.last_action.fallback) == ("do more", "undo it")


def test_the_handoff_shows_the_words_the_automatic_step_and_earlier_actions():
    editor = SessionEditor(_session())
    editor.set_last_action("first try", "rerun", "give up")
    editor.set_last_action("benchmarked c=128", NEXT, FALLBACK)
    _automatic_steps(editor)
    section = render_handoff(editor.session).split("Last action", 1)[1]
    assert f"**Next step:** {NEXT}" in section and f"**Fallback:** {FALLBACK}" in section
    assert "**Since then (automatic):** sweep s1 (chat) on l1: 4 of 4 points recorded" in section
    assert "Earlier actions (newest first):" in section and "- first try" in section and "next: rerun" in section
