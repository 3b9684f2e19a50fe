"""Readings from real formats that carry inf, nan or 1e308 (an nvidia-smi CSV, a dcgm-exporter
page, an SGLang /metrics page, a bench_serving result block): each is no reading, said at its
file:line where a file is read, never a traceback, and no finding ever states inf or nan."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.findings import Evidence, Finding, states_non_finite
from cockpit.live.diagnosis.inputs import bundle
from cockpit.live.diagnosis.load import InputFileError, gpus_from_text, scrape_from_text
from cockpit.model.strict import MAX_FIGURE as SESSION_MAX_FIGURE
from cockpit.parse.bench.bench_serving import parse_number, refused_rows
from cockpit.parse.gpu.dcgm_metrics import dcgm_samples
from cockpit.parse.gpu.nvsmi_query import parse_query_csv
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape
from cockpit.parse.numbers import MAX_FIGURE

DATA = Path(__file__).resolve().parents[2] / "data"
GPUS = (DATA / "diagnosis" / "11-power-demo-gpus0-3" / "gpus.txt").read_text()
DCGM = (DATA / "metrics" / "dcgm-exporter-a.txt").read_text()
KV = DATA / "diagnosis" / "08-queue-metrics-low-kv"
SPEC = (DATA / "diagnosis" / "31-spec-metrics" / "metrics-a.txt").read_text()
NON_FINITE = re.compile(r"(?<![\w.])[-+]?(inf|nan)(?![\w])", re.I)


def _cell(text: str, line: int, column: int, value: str) -> str:
    lines = text.splitlines()
    cells = lines[line - 1].split(", ")
    cells[column] = value
    lines[line - 1] = ", ".join(cells)
    return "\n".join(lines) + "\n"


def _says_no_inf(findings: list[Finding]) -> None:
    for finding in findings:
        text = json.dumps(finding.to_dict())
        assert not NON_FINITE.search(text), text


def test_the_figure_bound_of_the_parsers_is_the_sessions():
    assert MAX_FIGURE == SESSION_MAX_FIGURE


@pytest.mark.parametrize(("column", "value", "why"), [
    (4, "1e308", "power.draw out of range: 1e+308 is not a reading (0 to 100000)"),
    (4, "1e999", "power.draw out of range: inf is not a reading (0 to 100000)"),
    (4, "+nan", "power.draw out of range: nan is not a reading (0 to 100000)"),
    (6, "-5", "utilization.gpu out of range: -5 is not a reading (0 to 100)"),
    (1, "9" * 4400, "GPU index of 4,400 digits is not an index"),
    (1, "70000", "GPU index 70000 is not an index (0 to 65535)"),
])
def test_a_gpu_csv_cell_out_of_range_is_refused_at_its_line(column, value, why):
    text = _cell(GPUS, 3, column, value)
    with pytest.raises(InputFileError) as err:
        gpus_from_text(text, "gpus.csv")
    assert str(err.value) == f"gpus.csv:3: {why}"


def test_a_streamed_gpu_line_out_of_range_is_none_with_a_note_or_dropped():
    samples = parse_query_csv(_cell(GPUS, 1, 4, "1e308"))
    first = samples[0]
    assert first.power_w is None and first.notes["power_w"].startswith("out of range")
    assert len(parse_query_csv(_cell(GPUS, 1, 1, "9" * 4400))) == len(samples) - 1


def test_diagnose_reads_a_gpu_csv_of_1e308_as_an_error_at_its_line(tmp_path):
    session = tmp_path / "s.toml"
    subprocess.run([sys.executable, "-m", "cockpit", "new", str(session)], check=True, capture_output=True)
    gpus = tmp_path / "gpus.csv"
    gpus.write_text(_cell(GPUS, 2, 4, "1e308"))
    done = subprocess.run([sys.executable, "-m", "cockpit", "diagnose", str(session), "--gpus", str(gpus)],
                          capture_output=True, text=True, timeout=120)
    said = done.stdout + done.stderr
    assert "Traceback" not in said
    assert done.returncode != 0 and f"{gpus}:2: power.draw out of range: 1e+308" in said


@pytest.mark.parametrize("value", ["1e308", "+Inf", "NaN", "-1e308"])
def test_a_dcgm_page_that_overflows_leaves_the_figure_out_and_diagnosis_whole(value):
    page = re.sub(r"^(DCGM_FI_DEV_POWER_USAGE\{[^}]*\}) \S+$", rf"\1 {value}", DCGM, flags=re.M)
    samples = dcgm_samples(parse_exposition(page), timestamp=1.0)
    assert samples and all(s.power_w is None and "out of range" in s.notes["power_w"] for s in samples)
    ticks = [s for t in range(20) for s in dcgm_samples(parse_exposition(page), timestamp=float(t))]
    _says_no_inf(diagnose(bundle(gpus=ticks)))  # the MCP resource and the TUI read this


@pytest.mark.parametrize("value", ["inf", "nan", "1e308", "-1e308", "-inf"])
def test_a_metrics_page_value_that_is_no_reading_is_left_out_and_said(value):
    page = (KV / "metrics-b.txt").read_text()
    page = re.sub(r"^(sglang:token_usage\{.*\}) 0\.2$", rf"\1 {value}", page, flags=re.M)
    scrape = sglang_scrape(parse_exposition(page))
    assert "token_usage" not in scrape.gauges and {n for n, _ in scrape.refused} == {"sglang:token_usage"}
    line = page.splitlines().index(next(x for x in page.splitlines() if x.startswith("sglang:token_usage{"))) + 1
    with pytest.raises(InputFileError, match=rf"^m\.txt:{line}: sglang:token_usage = "):
        scrape_from_text(page, "m.txt")
    before = sglang_scrape(parse_exposition((KV / "metrics-a.txt").read_text()))
    _says_no_inf(diagnose(bundle(metrics=[before, scrape])))


def test_speculative_accept_length_of_minus_inf_proposes_nothing_about_it():
    page = re.sub(r"^(sglang:spec_accept_length\{.*\}) \S+$", r"\1 -inf", SPEC, flags=re.M)
    scrape = sglang_scrape(parse_exposition(page))
    assert "spec_accept_length" not in scrape.gauges
    _says_no_inf(diagnose(bundle(metrics=[scrape])))


def test_a_finding_that_would_state_inf_is_never_proposed():
    said = Finding("kv_pressure", "The KV cache is full (inf%)", (Evidence("token_usage up to inf", "metrics"),),
                   0.5, "give it room", "kv")
    fine = Finding("kv_pressure", "The KV cache is full (98%): info", (Evidence("usage 0.98", "metrics"),),
                   0.5, "give it room", "kv")
    assert states_non_finite(said) and not states_non_finite(fine)
    assert states_non_finite(Finding("x", "ok", (), float("nan"), "n", "k"))


@pytest.mark.parametrize(("text", "number"), [("1e999", None), ("1e308", None), ("-1e308", None),
                                              ("9" * 30, None), ("inf", None), ("12.5", 12.5), ("100", 100)])
def test_a_bench_row_number_is_a_figure_or_none(text, number):
    assert parse_number(text) == number


def test_a_bench_result_block_of_overflowing_rows_is_refused_at_each_line():
    block = ["============ Serving Benchmark Result ============", "Backend:  sglang",
             "Traffic request rate:  inf", "Successful requests:  100", "Total input tokens:  1e308",
             "Output token throughput (tok/s):  1e999", "Mean TTFT (ms):  12.5", "=" * 50]
    assert refused_rows(block) == [(5, "Total input tokens: 1e308 is no figure (finite, at most 1e+15)"),
                                   (6, "Output token throughput (tok/s): 1e999 is no figure (finite, at most 1e+15)")]
