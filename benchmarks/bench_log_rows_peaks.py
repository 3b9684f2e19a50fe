"""What the sweep's log peaks cost the log pipeline: `lines_of` (the fold child's display
rows per round of input) with the batch peaks it now carries, against the rows alone
(`segments_of`, what it did before), on a decode-dominated synthetic serving log.

    python benchmarks/bench_log_rows_peaks.py [--lines N] [--runs N]

The peaks let a sweep point read its running/queued peaks from the panes' own pipeline
(control/live_hub.py) instead of tailing and parsing the host's log a second time. Prints a table,
writes benchmarks/out/log_rows_peaks.json. The machine is 2 shared cores: noisy.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_common import timed  # noqa: E402

from cockpit.live.log.items import lines_of, segments_of  # noqa: E402
from cockpit.parse.log.sglang_log import LogParser  # noqa: E402


def _log(n: int) -> bytes:
    out = []
    for i in range(n):
        if i % 50 == 0:
            out.append(f"[2026-11-28 21:00:{i % 60:02d} DP0 TP0] Prefill batch. #new-seq: 4, #new-token: 4096, "
                       f"#cached-token: 0, token usage: 0.40, #running-req: {i % 64}, #queue-req: {i % 5}")
        else:
            out.append(f"[2026-11-28 21:00:{i % 60:02d} DP0 TP0] Decode batch. #running-req: {i % 64}, "
                       f"#token: 123456, token usage: 0.41, cuda graph: True, gen throughput (token/s): 1234.56, "
                       f"#queue-req: {i % 5}")
    return ("\n".join(out) + "\n").encode()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--lines", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=7)
    args = ap.parse_args()
    data = _log(args.lines)
    events = LogParser().feed(data)
    parse_s = timed(lambda: LogParser().feed(data), 3)
    rows, both = [], []
    for _ in range(args.runs):  # alternated: the machine's load drifts
        rows.append(timed(lambda: segments_of(events), 1))
        both.append(timed(lambda: lines_of(events), 1))
    rows_s, both_s = statistics.median(rows), statistics.median(both)
    result = {"lines": args.lines, "runs": args.runs, "rows_s": rows_s, "lines_of_s": both_s,
              "peaks_cost": both_s / rows_s - 1, "parse_s": parse_s,
              "peaks_share_of_parse_and_rows": (both_s - rows_s) / (parse_s + both_s)}
    print(f"{'what':<34}{'median s':>10}{'µs/line':>10}")
    for label, value in (("parse (LogParser.feed)", parse_s), ("rows only (segments_of, before)", rows_s),
                         ("rows + peaks (lines_of, now)", both_s)):
        print(f"{label:<34}{value:>10.4f}{value / args.lines * 1e6:>10.3f}")
    print(f"the peaks cost {both_s / rows_s - 1:+.1%} of the rows, "
          f"{(both_s - rows_s) / (parse_s + both_s):.1%} of the child's parse + rows")
    out = ROOT / "benchmarks" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "log_rows_peaks.json").write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
