"""The metrics pane's line for the newer SGLang families (tests/unit/parse/test_sglang_newer_families.py
reads them)."""

from __future__ import annotations

from pathlib import Path

from cockpit.live.metrics.server_metrics import ServerMetricsFold
from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape
from cockpit.ui.render.metrics import signal_lines

DATA = Path(__file__).resolve().parents[1] / "data" / "metrics"
sys_path = Path(__file__).resolve().parents[1] / "unit" / "parse"


def page(*args: float) -> str:
    import importlib.util

    spec = importlib.util.spec_from_file_location("newer", sys_path / "test_sglang_newer_families.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.page(*args))


def test_the_pane_says_them_as_rates_and_shares() -> None:
    fold = ServerMetricsFold()
    fold.add(sglang_scrape(parse_exposition(page(900, 100, 10.0, 3, 1e15))), 0.0)
    m = fold.add(sglang_scrape(parse_exposition(page(1800, 200, 14.0, 5, 3e15))), 5.0)
    line = signal_lines(m)[-1]
    assert "decode w/o graph 10%" in line and "retract 0.4 req/s" in line and "GPU busy 80%" in line
    assert "EPLB bal 0.65" in line and "accept len 2.5 tok" in line and "400 TFLOP/s" in line
    assert line.endswith("(between the last 2 scrapes)"), line  # the rates say their window


def test_a_page_without_them_adds_no_line_but_per_dp_ranks() -> None:
    fold = ServerMetricsFold()
    m = fold.add(sglang_scrape(parse_exposition((DATA / "sglang-0.3-old-names.txt").read_text())), 0.0)
    assert signal_lines(m) == []
    m = ServerMetricsFold().add(sglang_scrape(parse_exposition((DATA / "sglang-0.4-dp2-a.txt").read_text())), 0.0)
    assert [line.split()[0:3] for line in signal_lines(m)] == [["per", "DP", "rank"]]
