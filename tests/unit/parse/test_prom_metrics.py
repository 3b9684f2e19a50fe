"""SGLang /metrics text -> ServerScrape, through prometheus-client's parser.

Fixtures in tests/data/metrics/ are made by us from the public formats (see make_fixtures.py).
"""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from cockpit.parse.metrics.prom_histogram import Histogram
from cockpit.parse.metrics.prom_text import ExpositionError, canonical_name, parse_exposition
from cockpit.parse.metrics.sglang_metrics import EXPECTED, sglang_scrape

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"


def scrape(name: str):
    return sglang_scrape(parse_exposition((DATA / name).read_text()))


def test_dp_ranks_are_summed_and_tp_replicas_counted_once():
    s = scrape("sglang-0.4-dp2-a.txt")
    # 2 DP ranks x 2 TP ranks: TP ranks repeat their group's figure; DP groups add up
    assert s.gauges["num_running_reqs"] == 12 + 13
    assert s.gauges["num_queue_reqs"] == 0 + 3
    assert s.gauges["gen_throughput"] == 800 + 850
    assert dict(s.gauges_by_dp["num_running_reqs"]) == {"0": 12, "1": 13}
    assert s.gauges["token_usage"] == pytest.approx((0.30 + 0.40) / 2)  # a fraction: averaged
    assert s.counters["prompt_tokens_total"] == 1_000_000
    assert s.models == ("Qwen/Qwen3-32B",)
    assert s.missing == ()
    assert s.is_sglang


PID_PAGE = "sglang-0.5-dp2-tp4-pid-a.txt"  # DP2 x TP4, 10 running per DP group, KV 50 %


def test_a_0_5_page_with_a_pid_per_rank_counts_each_dp_group_once():
    s = scrape(PID_PAGE)
    # every one of the 8 ranks has its own pid; the 4 TP ranks of a DP group are one scheduler
    assert s.gauges["num_running_reqs"] == 20          # not 80 (8 ranks x 10)
    assert dict(s.gauges_by_dp["num_running_reqs"]) == {"0": 10, "1": 10}
    assert s.gauges["token_usage"] == pytest.approx(0.5)  # not 2.0 (4 TP ranks summed)
    assert s.gauges["max_total_num_tokens"] == 200_000    # two pools of 100,000
    assert s.gauges["gen_throughput"] == 900 + 920
    # the scheduler's own histogram: one per DP group (1,000 each), never once per TP rank
    assert s.histograms["queue_time_seconds"].count == 2000
    assert s.counters["num_requests_total"] == 4000 and s.missing == ()


def test_a_label_fixed_by_the_rank_is_per_process_and_a_dimension_is_not():
    from cockpit.parse.metrics.sglang_metrics import per_process_labels

    rows = [({"tp_rank": str(t), "dp_rank": "0", "pid": str(100 + t), "host": f"n{t}", "model_name": "m"}, 1.0)
            for t in range(4)]
    assert per_process_labels(rows) == {"pid", "host"}  # model_name is the same everywhere: kept
    # a label with two values on one rank is a dimension of that rank's figures (kept apart)
    split = [({"tp_rank": "0", "priority": p}, 1.0) for p in ("high", "low")]
    split += [({"tp_rank": "1", "priority": p}, 1.0) for p in ("high", "low")]
    assert per_process_labels(split) == frozenset()
    # the tokenizer's series carry no rank: two processes with their own pid are both counted
    assert per_process_labels([({"pid": "1"}, 1.0), ({"pid": "2"}, 1.0)]) == frozenset()
    text = ("sglang:num_running_reqs{tp_rank=\"0\",dp_rank=\"0\",pid=\"7\"} 4\n"
            "sglang:num_running_reqs{tp_rank=\"1\",dp_rank=\"0\",pid=\"8\"} 4\n"
            "sglang:num_running_reqs{tp_rank=\"0\",dp_rank=\"0\",pid=\"3\"} 4\n")  # a dead pid's row
    assert sglang_scrape(parse_exposition(text)).gauges["num_running_reqs"] == 4


def test_token_usage_over_dp_groups_is_used_over_total():
    text = "".join(f'sglang:{name}{{dp_rank="{d}",tp_rank="0",pid="{d}"}} {v}\n'
                   for d, (usage, pool) in enumerate(((0.9, 300_000), (0.1, 100_000)))
                   for name, v in (("token_usage", usage), ("max_total_num_tokens", pool)))
    s = sglang_scrape(parse_exposition(text))
    assert s.gauges["token_usage"] == pytest.approx((0.9 * 300_000 + 0.1 * 100_000) / 400_000)


def test_router_spelling_reads_like_the_server_spelling():
    text = (DATA / "router-sglang_-a.txt").read_text()
    router = sglang_scrape(parse_exposition(text))
    server = sglang_scrape(parse_exposition(text.replace("sglang_", "sglang:")))
    assert router.spellings == frozenset({"sglang_"}) and server.spellings == frozenset({"sglang:"})
    assert router.figures() == server.figures() and router.figures()["num_running_reqs"] == 12
    assert router.histograms == server.histograms
    assert set(router.histograms) == {"time_to_first_token_seconds", "inter_token_latency_seconds",
                                      "e2e_request_latency_seconds"}
    assert canonical_name("sglang_num_queue_reqs") == "sglang:num_queue_reqs"
    assert canonical_name("DCGM_FI_DEV_GPU_UTIL") == "DCGM_FI_DEV_GPU_UTIL"


def test_an_old_server_names_what_it_lacks():
    s = scrape("sglang-0.3-old-names.txt")
    # 0.3.x: no request counter; ITL under its old name, which serves instead
    assert s.missing == ("sglang:num_requests_total",)
    assert "time_per_output_token_seconds" in s.histograms
    assert s.models == ("Qwen/Qwen3-32B",)  # 0.3.x: the `name` label


def test_text_of_another_exporter_lacks_every_expected_family():
    s = scrape("dcgm-exporter-a.txt")
    assert not s.is_sglang and s.figures() == {}
    assert s.missing == tuple("sglang:" + name for name, _ in EXPECTED)


def test_a_dropped_family_is_listed_missing_not_zero():
    text = (DATA / "sglang-0.4-dp2-a.txt").read_text()
    kept = "\n".join(line for line in text.splitlines() if "time_to_first_token" not in line) + "\n"
    s = sglang_scrape(parse_exposition(kept))
    assert s.missing == ("sglang:time_to_first_token_seconds",)
    assert "time_to_first_token_seconds" not in s.histograms


@pytest.mark.parametrize("garbage", ["not metrics {{{ at all\n", "x{le=\"1\" 3\n", "<html><body>Not Found</body></html>\n",
                                     "{\"detail\":\"Not Found\"}\n"])
def test_garbage_text_is_refused_with_a_reason(garbage):
    with pytest.raises(ExpositionError, match="not Prometheus exposition text"):
        parse_exposition(garbage)


def test_families_are_counted_as_the_parser_names_them():
    e = parse_exposition((DATA / "sglang-0.4-dp2-a.txt").read_text())
    assert e.families["sglang:num_running_reqs"] == 4
    assert e.families["sglang:prompt_tokens"] == 1  # the parser drops a counter's _total
    assert e.families["sglang:time_to_first_token_seconds"] == 17 + 1 + 2  # buckets, +Inf, sum, count


def test_a_page_of_2000_series_parses():
    lines = [f'sglang:num_running_reqs{{dp_rank="{i}",tp_rank="0"}} 1' for i in range(2000)]
    s = sglang_scrape(parse_exposition("\n".join(lines) + "\n"))
    assert s.gauges["num_running_reqs"] == 2000


def test_quantiles_interpolate_like_promql():
    h = Histogram(((0.1, 0.0), (0.2, 10.0), (math.inf, 10.0)), 10, 1.5)
    assert h.quantile(0.5) == pytest.approx(0.15)
    assert h.quantile(0.99) == pytest.approx(0.199)
    tail = Histogram(((1.0, 5.0), (math.inf, 10.0)), 10, 20)
    assert tail.quantile(0.9) == 1.0  # in the +Inf bucket: the highest finite bound
    assert Histogram(((1.0, 0.0), (math.inf, 0.0))).quantile(0.5) is None


def test_bucket_deltas_refuse_a_reset():
    old = Histogram(((1.0, 5.0), (math.inf, 8.0)), 8, 4)
    new = Histogram(((1.0, 7.0), (math.inf, 12.0)), 12, 7)
    assert new.minus(old) == Histogram(((1.0, 2.0), (math.inf, 4.0)), 4, 3)
    assert old.minus(new) is None
    assert new.minus(Histogram(((2.0, 1.0), (math.inf, 1.0)), 1, 1)) is None  # other bounds
