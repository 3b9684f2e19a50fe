"""The editor takes who acts (model/edit/edits.py): every journal event it makes says so; the
person's own stay as they are, and the undo step keeps the plain words."""

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Session


def test_each_journal_event_names_the_actor_of_its_editor():
    sweep = SessionEditor(Session(), actor="sweep")
    sweep.add_note("c=64 done")
    sweep.add_task("look at c=128")
    assert [e.text for e in sweep.session.journal] == ["c=64 done (via sweep)", "task added: look at c=128 (via sweep)"]
    assert sweep.undo() == "task added: look at c=128"

    person = SessionEditor(sweep.session)
    person.add_note("mine")
    assert person.session.journal[-1].text == "mine"
