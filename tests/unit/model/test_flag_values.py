"""Flag values compare as numbers where they are numbers (model/launch/flag_values.py): `0.80` is
`0.8` and `128` is `128.0` in the profile diff, the handoff, the timeline's drops
and the search's duplicate check; words stay words."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from cockpit.control.search.loop import SearchEvent, SearchLoop, derive_trial
from cockpit.control.search.runner import TrialOutcome, TrialRequest
from cockpit.control.transaction import SessionFile
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.live.diagnosis.rules_history import regression
from cockpit.model.bench.profile_diff import diff_lines, diff_profiles, launch_key
from cockpit.model.edit.edits import SessionEditor
from cockpit.model.enums import ProfileStatus
from cockpit.model.launch.flag_values import canonical_value, canonical_word, same_value
from cockpit.model.search.search import Search, TrialStatus
from cockpit.model.search.space import derived_name
from cockpit.model.session import Benchmark, LaunchProfile, Session, Sweep
from cockpit.model.timeline import drops
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session, save_session

T0 = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
SERVE = "python -m sglang.launch_server --model-path m --tp 8"


@pytest.mark.parametrize(("a", "b"), [("0.80", "0.8"), ("128", "128.0"), ("1e3", "1000"), ("+2", "2"), ("-0", "0"),
                                      ("0.5", ".5"), ("1_000", "1000"), ("2.50E1", "25")])
def test_numbers_compare_by_value(a: str, b: str) -> None:
    assert same_value(a, b) and canonical_word(a) == canonical_word(b)


@pytest.mark.parametrize(("a", "b"), [("0.8", "0.81"), ("auto", "Auto"), ("inf", "Infinity"), ("nan", "NaN"),
                                      ("0x10", "16"), ("True", "1"), ("128", "1280"), ("v1.0", "v1")])
def test_words_and_different_numbers_differ(a: str, b: str) -> None:
    assert not same_value(a, b)


def test_a_value_of_several_words_compares_word_by_word() -> None:
    assert canonical_value("1 2.0 4.00") == "1 2 4" and not same_value("1 2 4", "1 4 2")
    assert same_value(None, None) and not same_value("0", None)


def profile(ident: str, flags: str, **kw) -> LaunchProfile:
    return LaunchProfile(id=ident, name=ident, command=f"{SERVE} {flags}", **kw)


def test_the_diff_calls_equal_numbers_the_same_and_shows_the_words_as_written() -> None:
    a = profile("l1", "--mem-fraction-static 0.80 --cuda-graph-max-bs 128", env={"X": "1.0"})
    b = profile("l2", "--cuda-graph-max-bs=128.0 --mem-fraction-static 0.8", env={"X": "1"})
    assert diff_profiles(a, b).identical
    assert diff_lines(diff_profiles(a, b)) == [("note", "The two profiles launch the same command.")]
    assert launch_key(a.command, a.env, None) == launch_key(b.command, b.env, None)
    c = profile("l3", "--mem-fraction-static 0.85 --cuda-graph-max-bs 128")
    assert [t for k, t in diff_lines(diff_profiles(a, c)) if k == "changed"] == ["~ --mem-fraction-static: 0.80 -> 0.85"]
    assert launch_key(a.command, {}, None) != launch_key(c.command, {}, None)


def _bench(ident: str, minutes: int, tok: float, prof: str) -> Benchmark:
    return Benchmark(id=ident, label=f"run {ident}", profile=prof, concurrency=64, input_len=1024, output_len=1024,
                     total_tok_s=tok, when=T0 + timedelta(minutes=minutes))


def _drop_session() -> Session:
    # l2 is l1 written differently (0.8, 128.0) plus one real change: only that change is evidence
    return Session(launch=[profile("l1", "--mem-fraction-static 0.80 --cuda-graph-max-bs 128", status=ProfileStatus.WORKING),
                           profile("l2", "--mem-fraction-static 0.8 --cuda-graph-max-bs 128.0 --disable-radix-cache")],
                   benchmarks=[_bench("b1", 0, 1000.0, "l1"), _bench("b2", 10, 600.0, "l2")])


def test_timeline_drop_and_handoff_list_only_the_real_change() -> None:
    session = _drop_session()
    (drop,) = drops(session)
    assert drop.profile_changes == ("launch l1 -> l2", "+ --disable-radix-cache")
    # the diagnosis compares like with like (issue 37): b2 on another profile is no regression
    assert regression(DiagnosisInputs(session=session)) == []
    handoff = render_handoff(session)
    other = handoff.split("Other profiles", 1)[1]
    assert "`+ --disable-radix-cache`" in other and "~ --mem-fraction-static" not in other
    assert "~ --cuda-graph-max-bs" not in other


def _search_session(**search_kw) -> Session:
    return Session(launch=[profile("l1", "--mem-fraction-static 0.80 --cuda-graph-max-bs 64")],
                   sweeps=[Sweep(id="s1", name="two points", concurrencies=[4, 16])],
                   searches=[Search(id="q1", name="q", profile="l1", sweep="s1", trials=2,
                                    space={"--mem-fraction-static": [0.8, 0.85]}, **search_kw)])


def test_a_trial_of_the_base_configuration_written_differently_reuses_its_profile() -> None:
    editor = SessionEditor(_search_session())
    base = editor.session.launch[0]
    trial = derive_trial(editor, "q1", 0, {"--mem-fraction-static": 0.8}, None)
    assert trial.profile == "l1" and [p.id for p in editor.session.launch] == ["l1"]
    search = editor.session.searches[0]
    assert derived_name(search, base, {"--mem-fraction-static": 0.8}) == "l1 · as the base"
    other = derive_trial(editor, "q1", 1, {"--mem-fraction-static": 0.85}, None)
    assert other.profile == "l2" and "--mem-fraction-static 0.85" in editor.session.launch[1].command


class CountingRunner:
    """Records the sweep's two points for each trial it launches (figures from the flag)."""

    def __init__(self, path: Path) -> None:
        self.sink = SessionFile(path)
        self.launched: list[str] = []

    async def run_trial(self, request: TrialRequest, *, check_point, on_state) -> TrialOutcome:  # noqa: ANN001
        self.launched.append(request.profile_id)
        ids: list[str] = []
        for c in (4, 16):
            def add(e: SessionEditor, c: int = c) -> str:
                return e.add_benchmark(label=request.run_id, profile=request.profile_id, sweep="s1", concurrency=c,
                                       output_tok_s=100.0 * c)
            ids.append(await self.sink.apply(add))
        return TrialOutcome(TrialStatus.OK, ids, ready_s=1.0)


def test_a_configuration_the_session_measured_is_not_launched_again(tmp_path: Path) -> None:
    session = _search_session(repeats=0)
    # the person swept l1 (its file says 0.80; the space says 0.8)
    session.benchmarks = [Benchmark(id="b1", label="s1 c4", profile="l1", sweep="s1", concurrency=4, output_tok_s=420.0),
                          Benchmark(id="b2", label="s1 c16", profile="l1", sweep="s1", concurrency=16,
                                    output_tok_s=1700.0)]
    path = tmp_path / "s.toml"
    save_session(session, path)
    runner = CountingRunner(path)
    events: list[SearchEvent] = []
    asyncio.run(SearchLoop(SessionFile(path), str(path), "q1", runner, [None], on_event=events.append).run())
    search = load_session(path).searches[0]
    reused = search.trial[0]  # measured before: taken as the first trial, no launch spent on it
    assert (reused.profile, reused.reused, reused.status, reused.benchmarks) == ("l1", True, TrialStatus.OK, ["b1", "b2"])
    assert runner.launched[0] == "l2"  # the first launch is the configuration not measured
    # l1 runs again only as a relaunch of trial 0 (the race for the best), never as a new trial
    again = [t for t in search.trial[1:] if t.profile == "l1"]
    assert all(t.repeat_of == 0 for t in again)
    assert any("(measured before: reused, not launched)" in e.text for e in events)
