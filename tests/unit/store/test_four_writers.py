"""Four kinds of writer on one session at once, each add placed in every long-lived writer's
start-up gap (after its read, before its first save): the TUI's controller, three `cockpit
add` shells, the MCP server's tools and `cockpit sweep`'s records (one transaction each). Three
rounds of 134 records: none lost."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path

from cockpit.cli import main as cockpit_main
from cockpit.cli.open_tui import resolve_session
from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import PortSink
from cockpit.control.transaction import ASSISTANT, SessionFile
from cockpit.model.session import Session
from cockpit.store.cli_load import load_or_report
from cockpit.store.toml_store import load_session, save_session

SHELLS, PER_SHELL, TUI_ADDS, MCP_ADDS, SWEEP_POINTS = 3, 25, 20, 20, 19  # 134 records


def _round(path: Path, build=SessionController) -> tuple[int, int, float]:  # noqa: ANN001
    save_session(Session(title="four writers"), path)
    expected: set[str] = set()
    # The TUI and the sweep read; the shells and MCP add in that gap; the TUI and the sweep
    # build and make their first save with nobody writing in between (where a stale
    # signature writes over the gap's adds); then everyone writes at once.
    have_read = threading.Barrier(2 + SHELLS + 1, timeout=60)
    gap_done = threading.Barrier(2 + SHELLS + 1, timeout=60)
    first_saved = threading.Barrier(2 + SHELLS + 1, timeout=60)
    errors: list[BaseException] = []

    def guard(work):  # noqa: ANN001, ANN202
        def run() -> None:
            try:
                work()
            except BaseException as exc:  # noqa: BLE001 -- reported by the test
                errors.append(exc)
        return run

    def tui() -> None:
        resolved = resolve_session(str(path))  # the read `cockpit FILE` makes
        assert not isinstance(resolved, int)
        _, session, sig, _ = resolved
        have_read.wait()
        gap_done.wait()  # Textual imported, sources started: the others added meanwhile
        control = build(session, path, disk_sig=sig)
        for i in range(TUI_ADDS):
            control.apply(lambda e, i=i: e.add_task(f"tui {i}"))
            while not control.save().saved:
                time.sleep(0.01)
            if i == 0:
                first_saved.wait()

    def sweep() -> None:
        load_or_report(path)  # the read `cockpit sweep` makes
        have_read.wait()
        gap_done.wait()  # it waited on /health meanwhile
        sink = PortSink(SessionFile(path))  # as `cockpit sweep` records: one transaction per point

        async def points() -> None:
            for c in range(SWEEP_POINTS):
                await sink.record(f"s1:r1:{c + 1}", {"label": f"sweep {c}", "concurrency": c + 1})
                if c == 0:
                    first_saved.wait()
        asyncio.run(points())

    def shell(n: int) -> None:
        have_read.wait()
        for i in range(PER_SHELL):
            assert cockpit_main(["add", "note" if i % 2 else "task", str(path), f"shell{n} {i}"]) == 0
            if i == 1:  # two adds in the gap
                gap_done.wait()
                first_saved.wait()

    def mcp() -> None:
        file = SessionFile(path, actor=ASSISTANT)  # what the MCP server's tools write through
        have_read.wait()
        for i in range(MCP_ADDS):
            file.transact(lambda e: e.add_task(f"mcp {i}"))  # noqa: B023 - applied in this iteration
            if i == 1:
                gap_done.wait()
                first_saved.wait()

    expected |= {f"tui {i}" for i in range(TUI_ADDS)} | {f"mcp {i}" for i in range(MCP_ADDS)}
    expected |= {f"shell{n} {i}" for n in range(SHELLS) for i in range(PER_SHELL)}
    expected |= {f"sweep {c}" for c in range(SWEEP_POINTS)}
    threads = [threading.Thread(target=guard(tui)), threading.Thread(target=guard(sweep)), threading.Thread(target=guard(mcp))]
    threads += [threading.Thread(target=guard(lambda n=n: shell(n))) for n in range(SHELLS)]
    start = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not errors, errors
    assert not any(thread.is_alive() for thread in threads)
    final = load_session(path)
    kept = {t.title for t in final.tasks} | {b.label for b in final.benchmarks}
    kept |= {j.text for j in final.journal if j.kind == "note"}
    return len(expected), len(expected - kept), time.monotonic() - start


def test_four_writers_lose_nothing_over_three_rounds(tmp_path: Path, capsys) -> None:
    for n in range(3):
        total, lost, took = _round(tmp_path / f"round{n}.toml")
        assert total == 134
        assert lost == 0, f"round {n + 1}: {lost} of {total} records lost"
