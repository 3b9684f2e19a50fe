"""ExpositionCache: a page with the same series as the last one is read from the plan that
prometheus-client's parse of the first page left; it must give exactly what a full parse
gives, and fall back to the full parse whenever the plan could be wrong."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cockpit.parse.metrics.prom_text import ExpositionCache, ExpositionError, parse_exposition

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"
PAIRS = [("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt"), ("router-sglang_-a.txt", "router-sglang_-b.txt"),
         ("dcgm-exporter-a.txt", "dcgm-exporter-a.txt"), ("sglang-0.3-old-names.txt", "sglang-0.3-old-names.txt")]


@pytest.mark.parametrize("a, b", PAIRS, ids=[p[0] for p in PAIRS])
def test_the_next_page_read_from_the_plan_equals_a_full_parse(a: str, b: str) -> None:
    cache = ExpositionCache()
    first, second = (DATA / a).read_text(), (DATA / b).read_text()
    assert cache.parse(first) == parse_exposition(first)
    got = cache.parse(second)
    assert (cache.hits, cache.misses) == (1, 1)
    assert got == parse_exposition(second)
    assert got.families == parse_exposition(second).families


def test_new_series_are_parsed_in_full() -> None:
    cache = ExpositionCache()
    cache.parse('# TYPE x gauge\nx{a="1"} 1\n')
    got = cache.parse('# TYPE x gauge\nx{a="1"} 2\nx{a="2"} 3\n')
    assert cache.misses == 2
    assert got.get("x") == (({"a": "1"}, 2.0), ({"a": "2"}, 3.0))


def test_a_changed_type_line_is_parsed_in_full() -> None:
    cache = ExpositionCache()
    cache.parse("# TYPE x counter\nx_total 1\n")
    got = cache.parse("# TYPE x gauge\nx_total 2\n")
    assert cache.misses == 2 and got == parse_exposition("# TYPE x gauge\nx_total 2\n")


def test_values_with_timestamps_are_never_read_from_a_plan() -> None:
    cache = ExpositionCache()
    # the same value with a new timestamp: the line less its last field is unchanged, but
    # that field is the timestamp, not the value
    cache.parse("x 1 1700000000000\n")
    got = cache.parse("x 1 1700000001000\n")
    assert cache.hits == 0 and got.get("x")[0][1] == 1.0


def test_nan_inf_and_a_label_with_spaces() -> None:
    cache = ExpositionCache()
    text = 'x{path="/a b c"} NaN\ny +Inf\n'
    cache.parse(text)
    got = cache.parse('x{path="/a b c"} 4\ny -Inf\n')
    assert cache.hits == 1
    assert got.get("x") == (({"path": "/a b c"}, 4.0),) and got.get("y")[0][1] == -math.inf


def test_garbage_on_the_planned_series_is_refused_as_a_full_parse_refuses_it() -> None:
    cache = ExpositionCache()
    cache.parse("x 1\n")
    with pytest.raises(ExpositionError):
        cache.parse("x one\n")
