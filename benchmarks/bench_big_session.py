"""A 5,000-task session in the TUI: open, first edit, save-and-quit, next to the example session.

    .venv/bin/python benchmarks/bench_big_session.py [--tasks 5000] [--runs 5] [--pin 0,1]

Each run opens the app headless (Textual's run_test, 120x40) on a fresh copy of the file,
times the first frame (the first paint of the main screen handed to the terminal driver:
the board, the panes and the header a person sees first), the restored view (the app's
after-first-refresh callback, which fills the hidden tabs and puts the saved tab and focus
back; it runs once the start-up layouts have settled, two or three paints later: what
earlier sessions called the first frame), one edit (a task moved one column, from the key to the board
showing it), and quit with save (q, then "save" when asked) to the app's exit. The
baseline is the example session (13 tasks) in the same run. Prints a table and writes
benchmarks/out/big_session.json. Goal: each step well under a second at 5,000 tasks; the
first frame under 1 s pinned to 2 cores (`--pin 0,1`: this process and all it starts run on
those CPUs only, as `taskset -c 0,1` does). Beside each wall time, the process's CPU time
(user + system, every thread) over the same span: under machine load the wall time stretches,
the CPU time much less. The 1-minute load average is recorded before and after.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from cockpit.model.enums import TASK_COLUMNS
from cockpit.model.session import Session, Task, now
from cockpit.store.toml_store import load_session, save_session

OUT = Path(__file__).resolve().parent / "out"
EXAMPLE = Path(__file__).resolve().parents[1] / "sessions" / "glm5-nvfp4.toml"


def big_session(tasks: int) -> Session:
    stamp = now()
    return Session(title="5,000 tasks", tasks=[
        Task(id=f"t{i}", title=f"task {i}: try another launch flag and benchmark it", notes="notes",
             status=TASK_COLUMNS[i % 4], order=i // 4, created=stamp, updated=stamp)
        for i in range(1, tasks + 1)])


async def one_run(path: Path) -> dict[str, float]:
    from cockpit.ui.app import CockpitApp
    from cockpit.ui.screens.confirm_quit import ConfirmQuitScreen

    t0, c0 = time.perf_counter(), time.process_time()
    app = CockpitApp(load_session(path), path, watch_interval_s=None, keymap={})
    first: list[float] = []
    restore = app._restore_view  # runs right after the first frame is drawn

    def mark_then_restore() -> None:
        first.extend((time.perf_counter(), time.process_time()))
        restore()

    app._restore_view = mark_then_restore  # type: ignore[method-assign]
    painted: list[float] = []
    display = app._display

    def mark_first_paint(screen: object, renderable: object) -> None:
        if renderable is not None and not painted and app.screen_stack and screen is app.screen_stack[0]:
            painted.extend((time.perf_counter(), time.process_time()))
        display(screen, renderable)  # type: ignore[arg-type]

    app._display = mark_first_paint  # type: ignore[method-assign]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        t1, c1 = time.perf_counter(), time.process_time()
        app.controller.autosave = False  # the quit below saves; no timer in between
        await pilot.press("1", "w")  # the todo column, whatever the file's saved view
        board_first = app.main_screen.query_one("#tasks-todo")
        board_first.focus()
        await pilot.pause()
        revision = app.editor.revision
        t2 = time.perf_counter()
        await pilot.press("greater_than_sign")
        await pilot.pause()
        t3 = time.perf_counter()
        assert app.editor.revision == revision + 1, "the edit did not apply"
        await pilot.press("q")
        if isinstance(app.screen, ConfirmQuitScreen):
            await pilot.press("s")
        while app.is_running:
            await pilot.pause(0.005)
        t4 = time.perf_counter()
    return {"first_frame_s": painted[0] - t0, "first_frame_cpu_s": painted[1] - c0,
            "restored_s": first[0] - t0, "restored_cpu_s": first[1] - c0, "open_s": t1 - t0, "edit_s": t3 - t2, "quit_s": t4 - t3,
            "open_cpu_s": c1 - c0}


def measure(source: Path, runs: int) -> dict[str, float]:
    samples: dict[str, list[float]] = {}
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / source.name
            shutil.copyfile(source, path)
            for key, value in asyncio.run(one_run(path)).items():
                samples.setdefault(key, []).append(value)
    return {key: statistics.median(values) for key, values in samples.items()}


def main() -> None:
    import compileall

    # The sandbox may set PYTHONDONTWRITEBYTECODE: compile once, as an install would, so
    # no run pays for compiling cockpit's modules.
    compileall.compile_dir(str(Path(__file__).resolve().parents[1] / "cockpit"), quiet=1)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=5000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pin", default=None, help="CPUs to run on, e.g. 0,1 (as taskset -c 0,1)")
    parser.add_argument("--json", default="big_session.json", help="file name under benchmarks/out/")
    args = parser.parse_args()
    if args.pin:
        os.sched_setaffinity(0, {int(c) for c in args.pin.split(",")})
    cpus = sorted(os.sched_getaffinity(0))
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / "big.toml"
        save_session(big_session(args.tasks), big)
        size = big.stat().st_size
        small = measure(EXAMPLE, args.runs)
        large = measure(big, args.runs)
    load_after = os.getloadavg()[0]
    rows = []
    print(f"CPUs {','.join(map(str, cpus))}; 1-minute load average {load_before:.2f} before, {load_after:.2f} after")
    print(f"{'step':<10} {'example (13 tasks)':>20} {f'{args.tasks} tasks':>14} {'ratio':>7}")
    for key, label in (("first_frame_s", "1st frame"), ("first_frame_cpu_s", "  its CPU"),
                       ("restored_s", "restored"), ("restored_cpu_s", "  its CPU"), ("open_s", "all shown"),
                       ("open_cpu_s", "  its CPU"), ("edit_s", "edit"), ("quit_s", "quit")):
        ratio = large[key] / small[key] if small[key] else float("nan")
        print(f"{label:<10} {small[key] * 1000:>17.0f} ms {large[key] * 1000:>11.0f} ms {ratio:>6.1f}x")
        rows.append({"step": label, "example_s": small[key], "big_s": large[key], "ratio": ratio})
    OUT.mkdir(exist_ok=True)
    (OUT / args.json).write_text(json.dumps(
        {"tasks": args.tasks, "file_bytes": size, "runs": args.runs, "cpus": cpus,
         "load_average_1m": [round(load_before, 2), round(load_after, 2)], "rows": rows,
         "medians": {"example": small, "big": large}}, indent=2) + "\n")


if __name__ == "__main__":
    main()
