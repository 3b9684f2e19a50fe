"""The campaign's setup edited through SessionEditor: goal, targets, instructions, hosts."""

import pytest

from cockpit.model.edit.edits import EditError, SessionEditor
from cockpit.model.enums import Comparator, Metric
from cockpit.model.session import FileChange, Session


def test_goal_fields_are_set_undoable_and_the_journal_says_from_and_to():
    editor = SessionEditor(Session())
    editor.set_goal(summary="GLM-5 fast", model="GLM-5-NVFP4", hardware=None)
    assert (editor.session.goal.summary, editor.session.goal.model) == ("GLM-5 fast", "GLM-5-NVFP4")
    event = editor.session.journal[-1]
    assert event.kind == "goal.edited"
    assert "model: (none) -> 'GLM-5-NVFP4'" in event.text and "hardware" not in event.text
    editor.undo()
    assert editor.session.goal.model is None


def test_targets_get_ids_are_validated_as_a_whole_and_deleted():
    editor = SessionEditor(Session())
    g1 = editor.add_target(metric=Metric.TOTAL_TOK_S, comparator=Comparator.GE, value=1000)
    g2 = editor.add_target(metric="output_tok_s_per_stream", value=100, concurrency_min=1, concurrency_max=2)
    assert (g1, g2) == ("g1", "g2")
    with pytest.raises(EditError, match="concurrency_min is above concurrency_max"):
        editor.edit_target(g2, concurrency_min=4)
    assert editor.session.goal.targets[1].concurrency_min == 1  # nothing half-applied
    editor.edit_target(g1, value=2000)
    assert "value: 1000.0 -> 2000" in editor.session.journal[-1].text
    editor.delete_target(g1)
    assert [t.id for t in editor.session.goal.targets] == ["g2"]
    assert editor.add_target(metric="ttft_ms", comparator="<=", value=200) == "g3"  # never reused


def test_instructions_are_added_edited_reordered_and_deleted():
    editor = SessionEditor(Session())
    a, b, c = (editor.add_instruction(text) for text in ("never kill the host", "log every run", "tp8 only"))
    editor.move_instruction(c, -1)
    assert [i.id for i in editor.session.instructions] == [a, c, b]
    with pytest.raises(EditError, match="already first"):
        editor.move_instruction(a, -1)
    editor.edit_instruction(b, "log every run with its profile")
    editor.delete_instruction(a)
    assert [(i.id, i.text) for i in editor.session.instructions] == [(c, "tp8 only"), (b, "log every run with its profile")]
    with pytest.raises(EditError):
        editor.edit_instruction(b, "")  # an instruction needs its text


def test_a_renamed_host_takes_the_records_that_name_it_along_and_a_named_one_is_not_deleted():
    editor = SessionEditor(Session())
    editor.add_host(name="lxc", ssh="glm-lxc", log_path="/var/log/sglang.log", gpu_source="nvidia-smi")
    editor.apply("file", lambda s: s.files.append(FileChange(id="f1", path="/x.py", host="lxc")))
    editor.edit_host("lxc", name="gpu1", gpu_interval_s=2.0)
    assert editor.session.hosts[0].name == "gpu1" and editor.session.files[0].host == "gpu1"
    assert "name: 'lxc' -> 'gpu1'" in editor.session.journal[-1].text
    with pytest.raises(EditError, match="named by f1"):
        editor.delete_host("gpu1")
    with pytest.raises(EditError, match="gpu_interval_s"):
        editor.edit_host("gpu1", gpu_interval_s=0)
    with pytest.raises(EditError, match="duplicate host name"):
        editor.add_host(name="gpu1")
