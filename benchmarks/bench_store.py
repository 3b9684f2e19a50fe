"""Save and load of a 5,000-item session against bare tomli_w.dumps / tomllib.loads.

    .venv/bin/python benchmarks/bench_store.py [--items 5000] [--runs 7]

Prints a table and writes benchmarks/out/store.json. Goals: save within 1.5x of the bare
dump of the same data; load within 2x of the bare parse plus validation.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import tomllib
from pathlib import Path

import tomli_w
from bench_common import timed

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import Benchmark, Discovery, JournalEvent, Session, Task, now
from cockpit.store.toml_store import load_session, save_session, to_data

OUT = Path(__file__).resolve().parent / "out"


def big_session(items: int) -> Session:
    stamp = now()
    per = items // 4
    session = Session(
        title="benchmark",
        discoveries=[Discovery(id=f"d{i}", claim=f"claim {i} " * 4, evidence="evidence\nline two", created=stamp)
                     for i in range(1, per + 1)],
        tasks=[Task(id=f"t{i}", title=f"task {i}", notes="some notes", order=i, created=stamp, updated=stamp,
                    discoveries=[f"d{1 + i % per}"]) for i in range(1, per + 1)],
        benchmarks=[Benchmark(id=f"b{i}", label=f"run {i}", concurrency=1 + i % 1024, total_tok_s=1000.0 + i,
                              output_tok_s=300.5 + i, when=stamp) for i in range(1, per + 1)],
        journal=[JournalEvent(when=stamp, kind="task.moved", text=f"task t{i} moved", ref=f"t{i}")
                 for i in range(1, items - 3 * per + 1)],
    )
    return SessionEditor(session).session




def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--items", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    session = big_session(args.items)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.toml"
        save_session(session, path)
        text = path.read_text(encoding="utf-8")
        data = to_data(session)
        results = {
            "bare tomli_w.dumps": timed(lambda: tomli_w.dumps(data, multiline_strings=True), args.runs),
            "cockpit save (dump + atomic write)": timed(lambda: save_session(session, path), args.runs),
            "bare tomllib.loads + validate": timed(lambda: Session.model_validate(tomllib.loads(text)), args.runs),
            "cockpit load (read + migrate + validate)": timed(lambda: load_session(path), args.runs),
        }
    save_ratio = results["cockpit save (dump + atomic write)"] / results["bare tomli_w.dumps"]
    load_ratio = results["cockpit load (read + migrate + validate)"] / results["bare tomllib.loads + validate"]
    print(f"session: {args.items} items, {len(text):,} bytes; median of {args.runs} runs")
    print(f"{'operation':45} {'median ms':>10}")
    for name, seconds in results.items():
        print(f"{name:45} {seconds * 1000:10.1f}")
    print(f"{'save / bare dump (goal <= 1.5)':45} {save_ratio:10.2f}")
    print(f"{'load / bare parse+validate (goal <= 2.0)':45} {load_ratio:10.2f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "store.json").write_text(json.dumps({
        "items": args.items, "bytes": len(text), "runs": args.runs,
        "median_ms": {k: round(v * 1000, 2) for k, v in results.items()},
        "save_ratio": round(save_ratio, 3), "load_ratio": round(load_ratio, 3),
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
