"""The campaign timeline: journal and benchmarks on one axis; drops and what came before."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Benchmark, JournalEvent, LaunchProfile, Session
from cockpit.model.timeline import drops, timeline
from cockpit.store.toml_store import save_session

T0 = datetime(2026, 11, 28, 20, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def bench(ident: str, minutes: int | None, tok: float | None, conc: int = 64, profile: str = "l1", **kw) -> Benchmark:
    return Benchmark(id=ident, label=f"run {ident}", profile=profile, concurrency=conc, input_len=1024,
                     output_len=1024, total_tok_s=tok, when=None if minutes is None else at(minutes), **kw)


def campaign() -> Session:
    return Session(
        launch=[LaunchProfile(id="l1", name="base", command="python -m sglang.launch_server --tp 8"),
                LaunchProfile(id="l2", name="graphs", command="python -m sglang.launch_server --tp 8 --cuda-graph-max-bs 128")],
        benchmarks=[bench("b1", 10, 600.0), bench("b2", 20, 800.0, conc=128), bench("b3", 30, 590.0),
                    bench("b4", 40, 500.0, profile="l2"), bench("b5", None, 100.0)],
        journal=[JournalEvent(when=at(10), kind="benchmark.added", text="benchmark added: run b1", ref="b1"),
                 JournalEvent(when=at(20), kind="benchmark.added", text="benchmark added: run b2"),  # old: no ref
                 JournalEvent(when=at(31), kind="task.moved", text="task t3 moved to doing", ref="t3"),
                 JournalEvent(when=at(35), kind="note", text="set NCCL_ALGO=Tree"),
                 JournalEvent(when=at(45), kind="note", text="after the last run")],
    )


def test_the_timeline_shows_each_benchmark_once_at_the_time_it_ran() -> None:
    entries = timeline(campaign())
    assert [(e.kind, e.ref) for e in entries] == [
        ("benchmark", "b1"), ("benchmark", "b2"), ("benchmark", "b3"), ("task.moved", "t3"), ("note", None),
        ("benchmark", "b4"), ("note", None)]
    assert entries[0].text == "b1 run b1: 600 total tok/s (c=64, profile l1)"


def test_a_drop_names_the_best_earlier_run_and_what_changed_since_the_previous_one() -> None:
    found = drops(campaign())
    # below l1's median over b1 and b3 (595), never its best run (600: 16.7 %)
    assert [(d.bench.id, d.best.id, d.previous.id, round(d.fraction, 3)) for d in found] == [("b4", "b1", "b3", 0.16)]
    assert [c.text for c in found[0].changes] == ["task t3 moved to doing", "set NCCL_ALGO=Tree"]
    assert found[0].profile_changes == ("launch l1 -> l2", "+ --cuda-graph-max-bs 128")
    # b3 is 1.7% below b1: within the threshold, not a drop; b2 has its own workload (c=128)
    assert drops(campaign(), threshold=0.01)[0].bench.id == "b3"


def test_the_editor_journals_a_benchmark_with_its_id() -> None:
    editor = SessionEditor(Session())
    ident = editor.add_benchmark(label="c=1", total_tok_s=50.0)
    assert editor.session.journal[-1].ref == ident == "b1"
    assert [e.kind for e in timeline(editor.session)] == ["benchmark"]


def test_the_timeline_command(tmp_path) -> None:
    path = tmp_path / "s.toml"
    save_session(campaign(), path)
    run = lambda *a: subprocess.run([sys.executable, "-m", "cockpit", "timeline", str(path), *a],  # noqa: E731
                                    capture_output=True, text=True, timeout=60)
    done = run()
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "2026-11-28 20:10  benchmark          b1 run b1: 600 total tok/s (c=64, profile l1)"
    i = lines.index("2026-11-28 20:40  benchmark          b4 run b4: 500 total tok/s (c=64, profile l2)")
    assert lines[i + 1].strip() == "▼ 16.0% below l1's median of 2 runs (b1); changed since b3:"
    assert [line.strip() for line in lines[i + 2:i + 6]] == [
        "task.moved: task t3 moved to doing", "note: set NCCL_ALGO=Tree", "launch l1 -> l2", "+ --cuda-graph-max-bs 128"]
    out = json.loads(run("--json").stdout)
    assert out["drops"][0]["bench"] == "b4" and out["drops"][0]["drop_pct"] == 16.0
    assert len(out["entries"]) == 7
    empty = tmp_path / "e.toml"
    save_session(Session(), empty)
    assert "no dated entries" in subprocess.run([sys.executable, "-m", "cockpit", "timeline", str(empty)],
                                                capture_output=True, text=True, timeout=60).stdout


def test_the_handoff_lists_each_drop_with_what_changed() -> None:
    from cockpit.store.handoff.markdown import render_handoff

    text = render_handoff(campaign())
    tail = text[text.index("Throughput drops"):]
    assert "- **b4** 16.0% below l1's median of 2 runs (b1) (500 vs 595), since b3:" in tail
    assert "  - `note: set NCCL_ALGO=Tree`\n  - `launch l1 -> l2`\n  - `+ --cuda-graph-max-bs 128`" in tail
    assert "Throughput drops" not in render_handoff(Session(benchmarks=[bench("b1", 10, 600.0, profile=None)]))


def test_a_searchs_trials_and_another_dataset_are_not_drops() -> None:
    """A search's trials are its answer, not regressions of each other (no ▼ either); runs of
    another dataset are another workload (issue 37)."""
    from cockpit.model.search.search import Search, SearchTrial

    s = campaign()
    trials = [bench("b6", 50, 300.0, profile="l2"), bench("b7", 55, 590.0, profile="l1")]
    search = Search(id="q1", name="graphs", profile="l1", sweep="s1", space={"--cuda-graph-max-bs": [128, 256]},
                    trial=[SearchTrial(number=0, params={"--cuda-graph-max-bs": 128}, benchmarks=["b6"]),
                           SearchTrial(number=1, params={"--cuda-graph-max-bs": 256}, benchmarks=["b7"])])
    other = bench("b8", 60, 200.0, dataset="sharegpt")
    with_search = s.model_copy(update={"benchmarks": [*s.benchmarks, *trials, other], "searches": [search]})
    assert [d.bench.id for d in drops(with_search)] == ["b4"]
    # the same runs outside a search and on the same dataset do drop
    plain = s.model_copy(update={"benchmarks": [*s.benchmarks, *trials, other.model_copy(update={"dataset": None})]})
    assert [d.bench.id for d in drops(plain)] == ["b4", "b6", "b8"]


def test_a_profile_swept_twice_with_noise_drops_on_its_median_never_its_luckiest_run() -> None:
    """Issue 35: one profile swept twice (two sweep runs, two repeats each) with run-to-run noise.
    Against the best run (1,120) every run of the second sweep would be a ▼ (8-15 % lower);
    against the first sweep's median (1,060) its median (1,025) is 3.3 % lower: no drop. A third
    sweep well below the profile's median is one drop, judged at its last repeat on its median."""
    def rep(ident: str, minutes: int, tok: float, sweep_run: str, repeat: int) -> Benchmark:
        return bench(ident, minutes, tok, sweep_run=sweep_run, repeat=repeat)

    first = [rep("b1", 10, 1000.0, "r-a", 1), rep("b2", 11, 1120.0, "r-a", 2)]
    second = [rep("b3", 20, 950.0, "r-b", 1), rep("b4", 21, 1100.0, "r-b", 2)]
    launch = campaign().launch
    assert drops(Session(launch=launch, benchmarks=first + second)) == []
    third = [rep("b5", 30, 900.0, "r-c", 1), rep("b6", 31, 910.0, "r-c", 2)]
    (drop,) = drops(Session(launch=launch, benchmarks=first + second + third))
    assert (drop.bench.id, drop.value, drop.runs, drop.best_value, drop.best_runs) == ("b6", 905.0, 2, 1050.0, 4)
    assert drop.reference() == "l1's median of 4 runs (b4)" and round(drop.fraction, 3) == 0.138
