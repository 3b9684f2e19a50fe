"""`cockpit --demo` reopens the copy quitting said it kept; `--demo --fresh` starts anew."""

from __future__ import annotations

from pathlib import Path

from cockpit.demo.build import DEMO_SESSION, data_dir, demo_copy

SHIPPED = data_dir() / DEMO_SESSION


def test_the_first_demo_makes_a_copy_of_the_shipped_session(tmp_path):
    path, note = demo_copy(tmp_path / "demo", SHIPPED)
    assert path == tmp_path / "demo" / DEMO_SESSION
    assert path.read_bytes() == SHIPPED.read_bytes()
    assert note == f"cockpit demo: new demo copy {path}"


def test_the_next_demo_reopens_the_copy_with_its_edits(tmp_path):
    path, _ = demo_copy(tmp_path, SHIPPED)
    path.write_text(path.read_text() + "\n# my edit\n")
    again, note = demo_copy(tmp_path, SHIPPED)
    assert again == path and path.read_text().endswith("# my edit\n")
    assert note == f"cockpit demo: reopening your demo copy {path} (--demo --fresh starts a new one)"
    assert sorted(p.name for p in tmp_path.iterdir()) == [DEMO_SESSION]


def test_fresh_starts_a_new_copy_and_keeps_the_previous_one_beside_it(tmp_path):
    path, _ = demo_copy(tmp_path, SHIPPED)
    edited = path.read_text() + "\n# my edit\n"
    path.write_text(edited)
    again, note = demo_copy(tmp_path, SHIPPED, fresh=True)
    previous = tmp_path / DEMO_SESSION.replace(".toml", ".prev.toml")
    assert again == path and path.read_bytes() == SHIPPED.read_bytes()
    assert previous.read_text() == edited
    assert note == f"cockpit demo: new demo copy {path} (the previous one is kept as {previous})"
    assert SHIPPED.read_text() != edited, "the shipped session is never touched"


def test_fresh_with_no_copy_yet_is_a_first_demo(tmp_path):
    path, note = demo_copy(tmp_path, SHIPPED, fresh=True)
    assert path.read_bytes() == SHIPPED.read_bytes() and "previous" not in note
    assert not Path(str(path).replace(".toml", ".prev.toml")).exists()
