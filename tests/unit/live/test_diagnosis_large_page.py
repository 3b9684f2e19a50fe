"""A large /metrics page is diagnosed streaming (issue 34: 31 MB, 700,000 series took 24-30 s
and 640 MB): read line by line, only the families the rules read kept. The streamed scrape
is the full parse's, family for family, on a generated page and on every metrics fixture;
a line no exposition has is still refused, naming it; memory stays that of the kept lines
(benchmarks/bench_large_metrics.py measures the 31 MB page: time and peak RSS)."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest
from large_metrics_page import DATA, large_page

from cockpit.live.diagnosis.load import InputFileError, scrape_from_file, scrape_from_text
from cockpit.parse.metrics.prom_text import CHUNK_CHARS, ExpositionError, parse_exposition
from cockpit.parse.metrics.sglang_metrics import USED_SAMPLES, sglang_scrape, sglang_scrape_streamed


def test_the_streamed_scrape_of_a_generated_page_is_the_full_parse_s(tmp_path: Path) -> None:
    text = large_page(20_000)
    full_expo = parse_exposition(text)
    full = sglang_scrape(full_expo)
    assert full.gauges["num_running_reqs"] == 20 and full.histograms and full.counters  # the used page is in it
    assert sglang_scrape_streamed(text.splitlines(keepends=True)) == full
    assert sglang_scrape_streamed(text[i:i + 7] for i in range(0, len(text), 7)) == full  # pieces cut mid-line
    page = tmp_path / "metrics.txt"
    page.write_text(text, encoding="utf-8")
    assert scrape_from_file(page) == full == scrape_from_text(text)
    # every family the rules read is there, with the full parse's samples, and nothing else
    kept = {name for name in full_expo.samples if name in USED_SAMPLES}
    assert kept and not {"sglang:request_seen_total", "sglang:lora_s_bucket"} & USED_SAMPLES


@pytest.mark.parametrize("fixture", sorted(p.name for p in DATA.glob("*.txt")))
def test_every_metrics_fixture_streams_to_the_full_parse_s_scrape(fixture: str) -> None:
    text = (DATA / fixture).read_text(encoding="utf-8")
    assert sglang_scrape_streamed(text.splitlines(keepends=True)) == sglang_scrape(parse_exposition(text))


def test_a_line_no_exposition_has_is_refused_even_in_a_family_nobody_reads(tmp_path: Path) -> None:
    page = tmp_path / "metrics.txt"
    text = large_page(100)
    bad = text + "<html>not metrics</html>\n"
    page.write_text(bad, encoding="utf-8")
    with pytest.raises(InputFileError) as err:
        scrape_from_file(page)
    line = len(text.splitlines()) + 1
    with pytest.raises(ExpositionError, match=f"line {line} is no sample line"):  # counted across pieces
        sglang_scrape_streamed(bad[i:i + 5] for i in range(0, len(bad), 5))
    assert str(err.value) == (f"{page}: not Prometheus text (not Prometheus exposition text: line {line} is no "
                              "sample line: '<html>not metrics</html>')")
    # what is not kept is checked for its shape only: an unquoted label value in a family no
    # rule reads is not parsed (prometheus-client would refuse the page for it)
    page.write_text(text.replace('{m="q",', "{m=q,", 1), encoding="utf-8")
    assert scrape_from_file(page).gauges["num_running_reqs"] == 20


def test_streaming_holds_only_the_kept_lines(tmp_path: Path) -> None:
    page = tmp_path / "metrics.txt"
    page.write_text(large_page(100_000), encoding="utf-8")  # ~4.4 MB
    tracemalloc.start()
    try:
        scrape_from_file(page)
        _, streamed_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        scrape_from_text(page.read_text(encoding="utf-8"))
        _, full_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # a few megabyte-pieces of the page at a time, whatever its size; the whole page parsed: ~100 MB
    assert streamed_peak < 8 * CHUNK_CHARS, streamed_peak
    assert full_peak > 10 * streamed_peak, (full_peak, streamed_peak)
