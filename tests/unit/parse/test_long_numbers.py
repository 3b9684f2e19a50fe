"""A number of any length in a log (Python's int() refuses more than 4,300 digits): every
line is kept, the field is unreadable, nothing raises; parse-log and bench import answer."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from paths import CORPUS, DATA

from cockpit.model.session import Session
from cockpit.parse.bench.bench_serving import parse_number
from cockpit.parse.log.events import LAZY_FIELDS, BenchResult, ErrorBlock
from cockpit.parse.log.sglang_log import fill_lazy, parse_text
from cockpit.parse.log.summary_scan import hyperscan_available, summarize_bytes
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.widgets.log.buffer import LogBuffer

BIG = "9" * 5000
LOGS = sorted((CORPUS / "sglang-logs").glob("*.log"))[:5] + [DATA / "bench" / "bench_serving_stdout.txt"]


def _with_big_numbers(path: Path) -> list[str]:
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return [re.sub(r"\d+", BIG, line) for line in lines]  # every number of every line


@pytest.mark.parametrize("log", LOGS, ids=lambda p: p.name)
def test_every_line_is_kept_whatever_its_numbers(log):
    lines = _with_big_numbers(log)
    events = parse_text("\n".join(lines) + "\n")
    assert [e.line for e in events if not isinstance(e, (BenchResult, ErrorBlock))] == lines
    for event in events:
        if type(event) in LAZY_FIELDS:
            fill_lazy(event)  # the fields the pane and the metrics read: none raises
    pane = LogBuffer(max_lines=len(lines) + 10)
    pane.add_events(events)
    assert pane.total == len(lines), "the log pane shows every line"
    data = ("\n".join(lines) + "\n").encode()
    for engine in ("sre", "hyperscan") if hyperscan_available() else ("sre",):
        summary = summarize_bytes(data, engine=engine)
        assert summary["decode_lines"] + summary["prefill_lines"] >= 0


def test_a_long_number_is_unreadable_for_its_field_only():
    assert parse_number(BIG) is None and parse_number(BIG + ".5") is None
    assert parse_number("1061.60") == 1061.6 and parse_number("64") == 64
    block = DATA.joinpath("bench", "bench_serving_stdout.txt").read_text().replace(
        "Successful requests:                     64", f"Successful requests:                     {BIG}")
    results = [e for e in parse_text(block) if isinstance(e, BenchResult)]
    assert results and "Successful requests" not in results[-1].values
    assert results[-1].values["Output token throughput (tok/s)"] == 1061.6


def test_parse_log_and_bench_import_answer(tmp_path):
    log = tmp_path / "bench.log"
    log.write_text("\n".join(_with_big_numbers(DATA / "bench" / "bench_serving_stdout.txt")) + "\n")
    done = subprocess.run([sys.executable, "-m", "cockpit", "parse-log", str(log)], capture_output=True, timeout=60)
    assert done.returncode == 0 and b"Traceback" not in done.stderr, done.stderr[-2000:]
    session = tmp_path / "s.toml"
    save_session(Session(title="x"), session)
    done = subprocess.run([sys.executable, "-m", "cockpit", "bench", "import", str(session), str(log)],
                          capture_output=True, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in (0, 1)
    if done.returncode == 0:
        assert len(load_session(session).benchmarks) == 1
