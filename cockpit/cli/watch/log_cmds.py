"""`cockpit parse-log FILE|- [--json]`: what the parser sees in an SGLang log."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from cockpit.ground.sanitize import sanitize
from cockpit.parse.log.summary_scan import summarize_stream


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "parse-log", help="summarize an SGLang server log (batch lines, throughput, errors, bench)",
        description="Summarize an SGLang server log: batch line counts, throughput and queue "
                    "peaks, error labels, the bench_serving result and readiness.",
    )
    p.add_argument("file", metavar="FILE|-", help="log file, or - for standard input")
    p.add_argument("--json", action="store_true", help="print the summary object as JSON")
    p.set_defaults(func=run_parse_log)


def run_parse_log(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            summary = summarize_stream(sys.stdin.buffer)
        else:
            with open(args.file, "rb") as f:
                summary = summarize_stream(f)
    except OSError as exc:
        from cockpit.cli.os_errors import os_error_line

        print(sanitize(os_error_line(exc, args.file)), file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(format_table(summary))
    return 0


def _fmt(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.2f}"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, list):
        return ", ".join(map(str, value)) or "none"
    return str(value)


def format_table(summary: Mapping[str, Any]) -> str:
    rows = [
        ("prefill lines", summary["prefill_lines"]),
        ("decode lines", summary["decode_lines"]),
        ("last gen throughput (tok/s)", summary["last_gen_throughput"]),
        ("max gen throughput (tok/s)", summary["max_gen_throughput"]),
        ("max running requests", summary["max_running_req"]),
        ("max queued requests", summary["max_queue_req"]),
        ("errors", summary["errors"]),
        ("ready", summary["ready"]),
    ]
    width = max(len(label) for label, _ in rows)
    lines = [f"{label:<{width}}  {_fmt(value)}" for label, value in rows]
    bench = summary.get("bench")
    if bench is not None:
        lines.append("bench_serving result:" if bench else "bench_serving result: (no numeric rows)")
        bwidth = max((len(k) for k in bench), default=0)
        lines.extend(f"  {sanitize(k):<{bwidth}}  {_fmt(v)}" for k, v in bench.items())
    return "\n".join(lines)
