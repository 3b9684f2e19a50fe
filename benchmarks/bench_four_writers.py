"""Four kinds of writer on one session, with real `cockpit add` processes, adds placed in the
start-up gap of the long-lived writers (after their read, before their first save).

    .venv/bin/python benchmarks/bench_four_writers.py [--rounds 3] [--build-time-signature]

Writers: the TUI's controller (read as `cockpit FILE` reads), a sweep recording through
a PortSink over a SessionFile (read as `cockpit sweep` reads, then one transaction per
point, as it records now), the MCP server's SessionFile, and three
shells each running `python -m cockpit add` in a loop. Each round: the TUI and the sweep
read; every shell and MCP add twice (the gap); the TUI and the sweep build their
controllers and save once; then all write at once. 134 records a round; the file is then
checked record by record. `--build-time-signature` builds the controllers as the old code
did (the signature of a stat at build time), to show what that loses.

Prints a table and writes benchmarks/out/four_writers.json. Goal: 0 lost in every round.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from cockpit.cli.open_tui import resolve_session
from cockpit.control.session_controller import SessionController
from cockpit.control.session_port import PortSink
from cockpit.control.transaction import ASSISTANT, SessionFile
from cockpit.live.experiment.sweep_sink import ControllerSink
from cockpit.model.session import Session
from cockpit.store.cli_load import load_or_report_signed
from cockpit.store.signature import disk_signature
from cockpit.store.toml_store import load_session, save_session

OUT = Path(__file__).resolve().parent / "out"
ROOT = Path(__file__).resolve().parents[1]
SHELLS, PER_SHELL, TUI_ADDS, MCP_ADDS, SWEEP_POINTS, GAP_ADDS = 3, 25, 20, 20, 19, 2


def shell_add(path: Path, n: int, i: int) -> None:
    kind = "note" if i % 2 else "task"
    subprocess.run([sys.executable, "-m", "cockpit", "add", kind, str(path), f"shell{n} {i}"], check=True,
                   cwd=ROOT, capture_output=True, timeout=120)


def one_round(path: Path, old_way: bool) -> dict[str, Any]:
    save_session(Session(title="four writers"), path)

    def build(session: Session, sig: Any) -> SessionController:
        return SessionController(session, path, disk_sig=disk_signature(path) if old_way else sig)

    start = time.monotonic()
    _, tui_session, tui_sig, _ = resolve_session(str(path))
    sweep_session, sweep_sig = load_or_report_signed(path)  # type: ignore[misc]
    mcp = SessionFile(path, actor=ASSISTANT)  # what the MCP server's tools write through
    gap = [threading.Thread(target=shell_add, args=(path, n, i)) for n in range(SHELLS) for i in range(GAP_ADDS)]
    for thread in gap:  # the gap: Textual importing, a sweep waiting on /health
        thread.start()
    for i in range(GAP_ADDS):
        mcp.transact(lambda e, i=i: e.add_task(f"mcp {i}"))
    for thread in gap:
        thread.join()
    tui = build(tui_session, tui_sig)
    # `cockpit sweep` records through one transaction per point; the old way, a controller
    # built from its read (what lost the gap's adds).
    sink: Any = ControllerSink(build(sweep_session, sweep_sig)) if old_way else PortSink(SessionFile(path))

    def tui_writes() -> None:
        for i in range(TUI_ADDS):
            tui.apply(lambda e, i=i: e.add_task(f"tui {i}"))
            while not tui.save().saved:
                time.sleep(0.01)

    def sweep_writes() -> None:
        async def points() -> None:
            for c in range(SWEEP_POINTS):
                await sink.record(f"s1:r1:{c + 1}", {"label": f"sweep {c}", "concurrency": c + 1})
        asyncio.run(points())

    def shell_writes(n: int) -> None:
        for i in range(GAP_ADDS, PER_SHELL):
            shell_add(path, n, i)

    def mcp_writes() -> None:
        for i in range(GAP_ADDS, MCP_ADDS):
            mcp.transact(lambda e, i=i: e.add_task(f"mcp {i}"))

    # The TUI's and the sweep's first saves come before anyone else writes again: where a
    # stale signature writes over the gap's adds without a merge.
    tui_writes_first = threading.Thread(target=tui_writes)
    tui_writes_first.start()
    while tui.saved_revision == 0:
        time.sleep(0.005)
    threads = [threading.Thread(target=sweep_writes), threading.Thread(target=mcp_writes)]
    threads += [threading.Thread(target=shell_writes, args=(n,)) for n in range(SHELLS)]
    for thread in threads:
        thread.start()
    for thread in [tui_writes_first, *threads]:
        thread.join()
    took = time.monotonic() - start

    final = load_session(path)
    kept = {t.title for t in final.tasks} | {b.label for b in final.benchmarks}
    kept |= {j.text for j in final.journal if j.kind == "note"}
    expected = {f"tui {i}" for i in range(TUI_ADDS)} | {f"mcp {i}" for i in range(MCP_ADDS)}
    expected |= {f"shell{n} {i}" for n in range(SHELLS) for i in range(PER_SHELL)}
    expected |= {f"sweep {c}" for c in range(SWEEP_POINTS)}
    lost = sorted(expected - kept)
    return {"records": len(expected), "lost": len(lost), "lost_records": lost, "seconds": round(took, 2)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--build-time-signature", action="store_true",
                        help="build the controllers as the old code did (a stat at build time)")
    args = parser.parse_args()
    rounds = []
    with tempfile.TemporaryDirectory() as folder:
        for n in range(args.rounds):
            rounds.append(one_round(Path(folder) / f"round{n + 1}.toml", args.build_time_signature))
    mode = "build-time signature (old)" if args.build_time_signature else "signature of the read"
    print(f"four writers, {mode}")
    print(f"{'round':>5}  {'records':>7}  {'lost':>4}  {'seconds':>7}")
    for n, row in enumerate(rounds, start=1):
        print(f"{n:>5}  {row['records']:>7}  {row['lost']:>4}  {row['seconds']:>7.2f}")
    OUT.mkdir(exist_ok=True)
    name = "four_writers_old.json" if args.build_time_signature else "four_writers.json"
    (OUT / name).write_text(json.dumps({"mode": mode, "rounds": rounds}, indent=2) + "\n", encoding="utf-8")
    return 0 if args.build_time_signature or all(row["lost"] == 0 for row in rounds) else 1


if __name__ == "__main__":
    sys.exit(main())
