"""Every real log excerpt in tests/data/corpus/sglang-logs: `parse-log --json` equals its
NNN.expect.json, and the event path (LogParser + LogSummary) agrees with it."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from scan_engines import ENGINES, scan_engine

from cockpit.cli import main
from cockpit.parse.log.sglang_log import LogParser
from cockpit.parse.log.summary import LogSummary
from cockpit.parse.log.summary_scan import summarize_bytes

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO / "tests" / "data" / "corpus" / "sglang-logs"
LOGS = sorted(CORPUS.glob("*.log"))


def _expected(log: Path) -> dict:
    return json.loads(log.with_name(log.name.replace(".log", ".expect.json")).read_text())


@pytest.mark.parametrize("log", LOGS, ids=[p.name for p in LOGS])
def test_parse_log_matches_expect(log: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = _expected(log)
    assert main(["parse-log", str(log), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == expected

    # the live path, fed in awkward pieces, must agree with the fast summary
    data = log.read_bytes()
    parser, summary = LogParser(), LogSummary()
    for i in range(0, len(data), 97):
        for event in parser.feed(data[i:i + 97]):
            summary.apply(event)
    for event in parser.end():
        summary.apply(event)
    assert summary.to_dict() == expected


@pytest.mark.parametrize("engine", ENGINES)
def test_both_scan_engines_on_the_corpus(engine: str) -> None:
    with scan_engine(engine):
        for log in LOGS:
            assert summarize_bytes(log.read_bytes()) == _expected(log), log.name


def test_corpus_present() -> None:
    assert len(LOGS) >= 30, f"corpus not found at {CORPUS}"


def test_parse_log_subprocess_file_and_stdin() -> None:
    log = CORPUS / "063.log"
    out = subprocess.run([sys.executable, "-m", "cockpit", "parse-log", str(log), "--json"],
                         capture_output=True, check=True, cwd=REPO).stdout
    assert json.loads(out) == _expected(log)
    log = CORPUS / "049.log"
    out = subprocess.run([sys.executable, "-m", "cockpit", "parse-log", "-", "--json"],
                         input=log.read_bytes(), capture_output=True, check=True, cwd=REPO).stdout
    assert json.loads(out) == _expected(log)


def test_parse_log_human_table(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["parse-log", str(CORPUS / "014.log")]) == 0
    out = capsys.readouterr().out
    assert "decode lines" in out and "Max reqeuest concurrency" not in out
    assert "Mean TTFT (ms)" in out


def test_parse_log_missing_file(capsys) -> None:
    # Like every command's file error: one line `path: reason`, exit 1.
    assert main(["parse-log", str(CORPUS / "no-such.log"), "--json"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.endswith("no-such.log: No such file or directory") and "\n" not in err
