"""Every journaled edit says which field went from what to what, in short plain text."""

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.edit.journal_text import MAX_VALUE, shown
from cockpit.model.enums import DiscoveryStatus, TaskStatus
from cockpit.store.toml_store import load_session


def editor() -> SessionEditor:
    return SessionEditor(load_session(EXAMPLE_SESSION))


def last(ed: SessionEditor) -> str:
    return ed.session.journal[-1].text


def test_task_moves_reorders_links_edits_and_deletes_say_from_and_to():
    ed = editor()
    ed.move_task("t8", 1)
    assert last(ed) == "task t8 moved todo -> doing"
    ed.move_task("t8", -1)
    assert last(ed) == "task t8 moved doing -> todo"
    ed.edit_task("t8", title="Fix allreduce fusion", notes=None)
    assert last(ed) == ('task t8 edited: title "Fix allreduce fusion for SM120 properly" -> "Fix allreduce fusion"; '
                        'notes "Investigate whether SM120 supports coop…" -> (none)')
    ed.edit_task("t8", title="Fix allreduce fusion")
    assert last(ed) == "task t8 edited: nothing changed"
    ed.set_task_links("t8", ["d1", "d2"])
    assert last(ed).startswith("task t8 linked: discoveries ") and last(ed).endswith(" -> d1, d2")
    n = len(ed.column(ed.session, TaskStatus.TODO))
    ed.reorder_task("t8", -1)  # it came back to the column's end
    assert last(ed) == f"task t8 reordered in todo: position {n} -> {n - 1}"
    ed.delete_task("t8")
    assert last(ed) == 'task t8 deleted: "Fix allreduce fusion"'


def test_discovery_status_by_cycle_and_by_edit():
    ed = editor()
    ident = ed.add_discovery("PDL helps at c=1")
    ed.cycle_discovery_status(ident)
    assert last(ed) == f"discovery {ident} status hypothesis -> confirmed"
    ed.edit_discovery(ident, status=DiscoveryStatus.REFUTED)
    assert last(ed) == f"discovery {ident} status confirmed -> refuted"
    ed.edit_discovery(ident, claim="PDL helps at c=2", status=DiscoveryStatus.REFUTED)
    assert last(ed) == f'discovery {ident} edited: claim "PDL helps at c=1" -> "PDL helps at c=2"'


def test_records_benchmarks_and_the_working_profile():
    ed = editor()
    ed.edit_record("benchmarks", "b3", profile="l2")
    assert last(ed) == "benchmark b3 edited: profile l1 -> l2"
    ed.edit_record("benchmarks", "b3", concurrency=2, output_tok_s=9.5)
    assert last(ed) == "benchmark b3 edited: concurrency 1 -> 2; output_tok_s 8 -> 9.5"
    ed.edit_record("launch", "l2", notes="")
    assert last(ed).startswith("launch profile l2 edited: ")
    ed.mark_profile_working("l2")
    assert last(ed) == "launch profile l2 status candidate -> working; l1 working -> candidate"


def test_values_are_shortened_to_one_line_of_plain_text_with_secrets_masked():
    ed = editor()
    ed.edit_task("t8", notes="line one\nline two\x1b[2J \u202e" + "x" * 200)
    text = last(ed)
    value = text.split(" -> ", 1)[1]
    assert "\n" not in text and "\x1b" not in text and "\u202e" not in text
    assert value.startswith('"line one line two?[2J ?') and value.endswith('…"')
    assert len(value) == MAX_VALUE + 2  # the quotes
    assert shown("--api-key sk-live-123 --tp 8") == '"--api-key [REDACTED] --tp 8"'
    assert shown({"HF_TOKEN": "hf_x", "NCCL_P2P_LEVEL": "SYS"}) == "HF_TOKEN=[REDACTED] NCCL_P2P_LEVEL=SYS"
    assert shown(None) == "(none)" and shown(True) == "yes"
