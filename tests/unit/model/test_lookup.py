"""A record by what a person types for it (model/edit/lookup.py): the one rule of `cockpit run`,
`cockpit sweep`, `cockpit diff` and the TUI's sweep."""

from cockpit.model.edit.lookup import by_id_or_name, known_records
from cockpit.model.session import LaunchProfile


def _profiles() -> list[LaunchProfile]:
    return [LaunchProfile(id="l1", name="l2", command="a"), LaunchProfile(id="l2", name="fp8", command="b"),
            LaunchProfile(id="l3", name="FP8", command="c"), LaunchProfile(id="l4", name="Base", command="d")]


def test_the_id_wins_then_the_exact_name_then_the_name_ignoring_case():
    profiles = _profiles()
    assert [p.id for p in by_id_or_name(profiles, "l2")] == ["l2"]  # not l1, whose name is "l2"
    assert [p.id for p in by_id_or_name(profiles, "fp8")] == ["l2"]  # the exact name, not l3's
    assert [p.id for p in by_id_or_name(profiles, "base")] == ["l4"]
    assert [p.id for p in by_id_or_name(profiles, "Fp8")] == ["l2", "l3"]  # ambiguous: the caller says so
    assert by_id_or_name(profiles, "none") == []


def test_the_known_ones_are_listed_for_the_error():
    assert known_records(_profiles()[:2]) == "l1 (l2), l2 (fp8)"
    assert known_records([], none="none yet") == "none yet"
