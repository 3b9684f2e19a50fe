"""Run the hostile-text suite and print the vectors x surfaces table of checks passed.

    python tests/hostile_table.py [pytest args...]

Runs tests/unit/cli/test_hostile_cli.py, tests/ui/test_hostile_text.py and
tests/e2e/test_hostile_tmux.py with COCKPIT_HOSTILE_TALLY set; every check those tests
make is counted per (vector, surface). Prints a Markdown table and writes
benchmarks/out/hostile_table.json. A failing test fails the script (its counts stop short).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
FILES = ["tests/unit/cli/test_hostile_cli.py", "tests/ui/test_hostile_text.py", "tests/e2e/test_hostile_tmux.py"]


def main(argv: list[str]) -> int:
    from hostile import NAMES

    with tempfile.TemporaryDirectory() as tmp:
        tally = Path(tmp) / "tally.jsonl"
        env = {**os.environ, "COCKPIT_HOSTILE_TALLY": str(tally)}
        for name in ("NO_COLOR", "TEXTUAL_THEME", "TEXTUAL"):
            env.pop(name, None)
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *FILES, *argv],
                              cwd=ROOT, env=env)
        rows = [json.loads(line) for line in tally.read_text().splitlines()] if tally.exists() else []
    counts: Counter[tuple[str, str]] = Counter()
    for row in rows:
        counts[(row["surface"], row["vector"])] += row["checks"]
    surfaces = list(dict.fromkeys(row["surface"] for row in rows))
    print(f"\n| surface | {' | '.join(NAMES)} | total |")
    print(f"| --- | {' | '.join('---:' for _ in NAMES)} | ---: |")
    for surface in surfaces:
        cells = [counts[(surface, name)] for name in NAMES]
        print(f"| {surface} | {' | '.join(str(c) for c in cells)} | {sum(cells)} |")
    totals = [sum(counts[(s, name)] for s in surfaces) for name in NAMES]
    print(f"| **all ({len(surfaces)} surfaces)** | {' | '.join(str(t) for t in totals)} | {sum(totals)} |")
    out = ROOT / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "hostile_table.json").write_text(json.dumps(
        {"vectors": NAMES, "surfaces": surfaces, "pytest_exit": done.returncode,
         "checks": {s: {n: counts[(s, n)] for n in NAMES} for s in surfaces}}, indent=1))
    return done.returncode


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
