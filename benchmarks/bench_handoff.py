"""The Handoff tab with a big campaign: how long the key after `0` waits, and `W`.

    PYTHONPATH=. .venv/bin/python benchmarks/bench_handoff.py [--profiles 4] [--tasks 350] [--runs 5] [--size 120x40]

The session is the chart tests' (tests/ui/sweep_sessions.py: the example campaign plus
--profiles x 12 swept runs (4 -> 48 benchmarks) and --tasks tasks (a ~600-line handoff); issue 39 measured
3-7.6 s for the key after `0` and a first `W` that wrote nothing). In the real app at --size:
  render      render_handoff(session) alone (store/handoff/markdown.py), synchronous;
  0 then 1    from pressing `0` (first visit of the tab) until the key after it (`1`) has
              switched the tab back and the frame is drawn; goal under 200 ms;
  text shown  from pressing `0` until the document is on the tab (made off the UI thread);
  UI thread   the made document put on the tab and the next frame drawn: what a key waits
              behind at most once the tab is shown (the goal's part that is the handoff's);
  W written   from pressing `W` on the tab until the file is on disk.
Medians of --runs (each run a fresh app), in wall time and, for the key after a tab, in
this process's CPU time too (on a machine whose cores are shared, wall time also counts
waiting for a core). Prints a table and writes
benchmarks/out/handoff.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "benchmarks" / "out"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "ui"))

from bench_common import timed  # noqa: E402

from sweep_sessions import sweep_session  # noqa: E402
from tui_support import make_app  # noqa: E402

from cockpit.model.enums import TaskStatus  # noqa: E402
from cockpit.model.session import Session, Task  # noqa: E402
from cockpit.store.handoff.markdown import render_handoff  # noqa: E402
from cockpit.store.toml_store import save_session  # noqa: E402
from cockpit.ui.widgets.session.text_views import HandoffView  # noqa: E402

GOAL_MS = 200.0


def _campaign(profiles: int, tasks: int) -> Session:
    base = sweep_session(profiles)
    statuses = list(TaskStatus)
    more = [Task(id=f"t{100 + i}", title=f"Check decode at c={2 ** (i % 11)} after change {i}",
                 status=statuses[i % len(statuses)]) for i in range(tasks)]
    return Session.model_validate(base.model_copy(update={"tasks": [*base.tasks, *more]}).model_dump())


async def _one_run(path: Path, size: tuple[int, int]) -> dict[str, float]:
    app = make_app(path)
    target = path.with_name(path.stem + ".handoff.md")
    target.unlink(missing_ok=True)
    async with app.run_test(size=size) as pilot:
        await pilot.pause(3.0)  # the first frame's deferred work (hidden tabs) done
        tabs = app.main_screen.query_one("#tabs")
        start, cpu = time.perf_counter(), time.process_time()
        await pilot.press("4", "1")  # another tab's first visit, for comparison
        while tabs.current != "main":
            await pilot.pause(0.005)
        await pilot.pause(0)
        other, other_cpu = time.perf_counter() - start, time.process_time() - cpu
        start, cpu = time.perf_counter(), time.process_time()
        await pilot.press("0", "1")
        while tabs.current != "main":
            await pilot.pause(0.005)
        await pilot.pause(0)  # the frame
        key_after, key_cpu = time.perf_counter() - start, time.process_time() - cpu
        start = time.perf_counter()
        await pilot.press("0")
        view = app.main_screen.query_one(HandoffView)
        while not view.shown_whole:
            await pilot.pause(0.005)
        shown = time.perf_counter() - start
        # a person who reads the tab first: `1` pressed once the handoff is on screen, timed from its own press
        await pilot.pause(0.2)
        start, cpu = time.perf_counter(), time.process_time()
        await pilot.press("1")
        while tabs.current != "main":
            await pilot.pause(0.005)
        await pilot.pause(0)
        read_then_key, read_then_key_cpu = time.perf_counter() - start, time.process_time() - cpu
        await pilot.press("0")
        while not view.shown_whole or tabs.current != "handoff":
            await pilot.pause(0.005)
        await pilot.pause(0.2)
        # the UI thread's own share of the tab: the made document put on it and a frame drawn
        text = view._source
        view.show("")
        await pilot.pause(0)
        start, cpu = time.perf_counter(), time.process_time()
        view.show(text)
        await pilot.pause(0)
        on_ui, on_ui_cpu = time.perf_counter() - start, time.process_time() - cpu
        start = time.perf_counter()
        await pilot.press("W")
        while not target.exists():
            await pilot.pause(0.005)
        written = time.perf_counter() - start
    return {"ui_thread_show_ms": on_ui * 1000, "ui_thread_show_cpu_ms": on_ui_cpu * 1000,
            "key_after_4_ms": other * 1000, "key_after_4_cpu_ms": other_cpu * 1000,
            "key_after_0_cpu_ms": key_cpu * 1000, "key_after_0_ms": key_after * 1000,
            "text_shown_ms": shown * 1000, "W_written_ms": written * 1000,
            "key_on_handoff_ms": read_then_key * 1000, "key_on_handoff_cpu_ms": read_then_key_cpu * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", type=int, default=4)
    parser.add_argument("--tasks", type=int, default=350)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--size", default="120x40")
    args = parser.parse_args()
    size = tuple(int(x) for x in args.size.split("x"))
    session = _campaign(args.profiles, args.tasks)
    text = render_handoff(session)
    render_ms = timed(lambda: render_handoff(session), args.runs) * 1000
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.toml"
        save_session(session, path)
        runs = [asyncio.run(_one_run(path, size)) for _ in range(args.runs)]
    med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
    rows = [("render_handoff", render_ms), ("4 then 1 (Benchmarks, to compare)", med["key_after_4_ms"]),
            ("  CPU of it", med["key_after_4_cpu_ms"]),
            ("0 then 1 (key after 0)", med["key_after_0_ms"]), ("  CPU of it", med["key_after_0_cpu_ms"]),
            ("1 on the shown Handoff tab, from its press", med["key_on_handoff_ms"]),
            ("  CPU of it", med["key_on_handoff_cpu_ms"]),
            ("text put on the tab (UI thread)", med["ui_thread_show_ms"]), ("  CPU of it", med["ui_thread_show_cpu_ms"]),
            ("0 until the text is shown", med["text_shown_ms"]), ("W until the file is written", med["W_written_ms"])]
    print(f"handoff: {len(session.benchmarks)} benchmarks, {len(text.splitlines())} lines; "
          f"median of {args.runs} runs, ms, at {args.size}")
    for name, ms in rows:
        print(f"  {name:<42} {ms:8.1f} ms")
    print(f"  goal: key after 0 < {GOAL_MS:.0f} ms: typed ahead with 0 (both switches): "
          f"{'met' if med['key_after_0_ms'] < GOAL_MS else 'NOT met'} (another tab's two switches took "
          f"{med['key_after_4_ms']:.0f} ms here); pressed on the shown tab: "
          f"{'met' if med['key_on_handoff_ms'] < GOAL_MS else 'NOT met'}; "
          f"the handoff's UI-thread work < {GOAL_MS:.0f} ms: "
          f"{'met' if med['ui_thread_show_ms'] < GOAL_MS else 'NOT met'}")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "handoff.json").write_text(json.dumps({
        "benchmarks": len(session.benchmarks), "lines": len(text.splitlines()), "runs": args.runs,
        "size": args.size, "statistic": "median ms (wall unless _cpu_)", "render_handoff_ms": round(render_ms, 1),
        **{k: round(v, 1) for k, v in med.items()}, "goal_key_after_0_ms": GOAL_MS}, indent=2) + "\n")


if __name__ == "__main__":
    main()
