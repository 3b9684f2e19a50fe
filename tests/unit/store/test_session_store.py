"""The TOML store: byte-exact round trip, errors with positions, atomic saves, migration."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from paths import DATA, EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import DiscoveryStatus, TaskStatus
from cockpit.model.session import Session
from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import dumps_session, load_session, loads_session, save_session


def test_example_session_round_trips_byte_for_byte():
    text = EXAMPLE_SESSION.read_text(encoding="utf-8")
    assert dumps_session(loads_session(text)) == text


def test_arrays_of_tables_are_always_written_as_blocks_in_field_order():
    text = EXAMPLE_SESSION.read_text(encoding="utf-8")
    assert "[[packages]]" in text and "{ id" not in text
    headers = [line for line in text.splitlines() if line.startswith("[")]
    order = ["[goal]", "[[goal.targets]]", "[[instructions]]", "[[discoveries]]", "[[tasks]]", "[[files]]",
             "[[packages]]", "[[launch]]", "[[benchmarks]]", "[last_action]", "[[hosts]]", "[ui]", "[ui.log]"]
    firsts = [headers.index(h) for h in order]
    assert firsts == sorted(firsts)


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=40)
_line = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=30)


@st.composite
def sessions(draw):
    editor = SessionEditor(Session(title=draw(_line)))
    for title in draw(st.lists(_line, max_size=6)):
        editor.add_task(title, draw(st.sampled_from(list(TaskStatus))), notes=draw(_text) or None)
    for claim in draw(st.lists(_line, max_size=4)):
        editor.add_discovery(claim, evidence=draw(_text) or None, status=draw(st.sampled_from(list(DiscoveryStatus))))
    for label in draw(st.lists(_line, max_size=4)):
        editor.add_benchmark(label=label, concurrency=draw(st.integers(1, 4096)),
                             total_tok_s=draw(st.floats(0, 1e6, allow_nan=False)))
    if editor.session.tasks and editor.session.discoveries and draw(st.booleans()):
        editor.link_task(editor.session.tasks[0].id, editor.session.discoveries[-1].id)
    if draw(st.booleans()):
        editor.set_last_action(draw(_line), draw(_text), draw(_text))
    return editor.session


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sessions())
def test_generated_sessions_round_trip_exactly(session):
    text = dumps_session(session)
    again = loads_session(text)
    assert again == session
    assert dumps_session(again) == text


BROKEN = {
    "syntax_error.toml": (6, 22, "TOML syntax"),
    "wrong_type.toml": (7, 1, "benchmarks[0].concurrency: Input should be a valid integer"),
    "unknown_status.toml": (11, 1, "tasks[1].status: Input should be 'todo', 'doing', 'done' or 'blocked' (got 'someday')"),
    "duplicate_id.toml": (9, 1, "discoveries[1].id: duplicate id 'd1'"),
    "missing_link.toml": (11, 1, "tasks[0].discoveries[1]: links to missing discoveries id 'd9'"),
    "unknown_key.toml": (6, 1, "hosts[0].colour: unknown key"),
    "password.toml": (7, 1, "never stores passwords"),
    "future_version.toml": (2, 1, "schema_version 7 is newer"),
    "missing_required.toml": (3, 1, "tasks[0].title: Field required"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_files_report_file_line_col_and_stay_untouched(name, tmp_path):
    path = tmp_path / name
    original = (DATA / "broken" / name).read_bytes()
    path.write_bytes(original)
    with pytest.raises(SessionFileError) as err:
        load_session(path)
    line, col, fragment = BROKEN[name]
    first = str(err.value).splitlines()[0]
    assert first.startswith(f"{path}:{line}:{col}: "), first
    assert fragment in first
    assert path.read_bytes() == original
    assert not (tmp_path / f"{name}.bak").exists()


def test_non_utf8_bytes_are_located(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(b'title = "ok"\ntitle2 = "caf\xe9"\n')
    with pytest.raises(SessionFileError, match=r"latin1.toml:2:14: not UTF-8"):
        load_session(path)


def test_v0_file_is_migrated():
    session = load_session(DATA / "v0" / "campaign.toml")
    assert session.schema_version == 1
    assert session.goal.summary == "Serve GLM-5 fast"
    assert [t.status for t in session.tasks] == [TaskStatus.DONE, TaskStatus.DOING, TaskStatus.TODO]
    assert session.last_action.text == "started the server with flashinfer_trtllm"
    assert session.last_action.next_step == "benchmark it"
    assert session.last_action.fallback == "go back to flashinfer_cutlass"
    assert "schema_version = 1" in dumps_session(session)


def test_save_keeps_the_previous_version_as_bak(tmp_path):
    path = tmp_path / "s.toml"
    first = load_session(EXAMPLE_SESSION)
    save_session(first, path)
    editor = SessionEditor(first)
    editor.add_task("new")
    save_session(editor.session, path)
    assert load_session(path) == editor.session
    assert load_session(tmp_path / "s.toml.bak") == first


# kill -9 during saves: tests/unit/store/test_session_saves.py (200 kills each on a small and a 5,000-task session).
