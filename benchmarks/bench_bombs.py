"""How fast hostile session files are refused, and what the bounds cost a normal load.

    .venv/bin/python benchmarks/bench_bombs.py [--runs 5]

Prints a table and writes benchmarks/out/bombs.json. Goals: every bomb refused (as a
SessionFileError) in well under a second; the pre-parse scan a small part of a 5,000-item load.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

from bench_common import timed
from bench_store import big_session

from cockpit.store.errors import SessionFileError
from cockpit.store.limits import structure_problem
from cockpit.store.toml_store import dumps_session, load_session

OUT = Path(__file__).resolve().parent / "out"
MB = 1024 * 1024
HEAD = 'schema_version = 1\ntitle = "bomb"\n\n[[tasks]]\nid = "t1"\ntitle = "x"\n'

BOMBS = {
    "100k nested arrays": HEAD + "notes = " + "[" * 100_000 + "]" * 100_000 + "\n",
    "100k nested inline tables": HEAD + "notes = " + "{a = " * 100_000 + "}" * 100_000 + "\n",
    "5000-digit integer": HEAD + "order = " + "7" * 5000 + "\n",
    "50 MB file": 'schema_version = 1\ntitle = "' + "x" * (50 * MB) + '"\n',
}




def refuse(path: Path) -> None:
    try:
        load_session(path)
    except SessionFileError:
        return
    raise AssertionError(f"{path} was not refused")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, text in BOMBS.items():
            path = Path(tmp) / "bomb.toml"
            path.write_text(text, encoding="utf-8")
            results[f"refuse: {name}"] = timed(lambda path=path: refuse(path), args.runs)
        big = dumps_session(big_session(5000))
        path = Path(tmp) / "big.toml"
        path.write_text(big, encoding="utf-8")
        results["5,000-item session: bounds scan"] = timed(lambda: structure_problem(big), args.runs)
        results["5,000-item session: whole load"] = timed(lambda: load_session(path), args.runs)
    print(f"median of {args.runs} runs")
    print(f"{'case':45} {'median ms':>10}")
    for name, seconds in results.items():
        print(f"{name:45} {seconds * 1000:10.1f}")
    OUT.mkdir(exist_ok=True)
    (OUT / "bombs.json").write_text(json.dumps({
        "runs": args.runs, "median_ms": {k: round(v * 1000, 2) for k, v in results.items()},
    }, indent=2) + "\n")


if __name__ == "__main__":
    main()
