"""Rank de-duplication of a `/metrics` page, label by label: every TP, PP and EP rank of one
DP group repeats its scheduler's figure (kept once: the lowest ranks'), DP groups are separate
schedulers (summed), and a label that only names the writing process (`pid`, a host) never
splits a group. Pinned on pages whose figures differ between replicas, so a rule that kept the
wrong replica, or summed them, shows a different number."""

from __future__ import annotations

import pytest

from cockpit.parse.metrics.prom_text import parse_exposition
from cockpit.parse.metrics.sglang_metrics import sglang_scrape

# Written out, not taken from the module: a label dropped there must fail here.
REPLICA_LABELS = ("tp_rank", "pp_rank", "moe_ep_rank")


def _page(rows: list[tuple[dict[str, str], float]], name: str = "num_running_reqs") -> str:
    lines = [f"# TYPE sglang:{name} gauge"]
    for labels, value in rows:
        inner = ",".join(f'{k}="{v}"' for k, v in labels.items())
        lines.append(f"sglang:{name}{{{inner}}} {value}")
    return "\n".join(lines) + "\n"


def _running(rows: list[tuple[dict[str, str], float]]) -> float:
    return sglang_scrape(parse_exposition(_page(rows))).gauges["num_running_reqs"]


@pytest.mark.parametrize("label", REPLICA_LABELS)
def test_each_replica_rank_label_is_counted_once(label: str) -> None:
    rows = [({"model_name": "m", label: str(r)}, 7.0) for r in range(4)]
    assert _running(rows) == 7.0, f"the 4 {label} replicas were added up"


@pytest.mark.parametrize("label", REPLICA_LABELS)
def test_the_lowest_replica_rank_is_the_one_kept(label: str) -> None:
    # a page caught mid-update: replicas disagree for a moment; rank 0 answers, in any row order
    rows = [({"model_name": "m", label: str(r)}, 10.0 + r) for r in (2, 0, 3, 1)]
    assert _running(rows) == 10.0


def test_dp_groups_are_summed_and_each_keeps_its_lowest_tp_rank() -> None:
    rows = [({"dp_rank": str(d), "tp_rank": str(t), "pid": str(100 + 4 * d + t)}, 10.0 * (d + 1) + t)
            for d in range(2) for t in (3, 1, 0, 2)]
    scrape = sglang_scrape(parse_exposition(_page(rows)))
    assert scrape.gauges["num_running_reqs"] == 10.0 + 20.0
    assert dict(scrape.gauges_by_dp["num_running_reqs"]) == {"0": 10.0, "1": 20.0}


def test_two_models_on_one_page_are_two_groups_not_replicas() -> None:
    rows = [({"model_name": "a", "tp_rank": "0"}, 3.0), ({"model_name": "b", "tp_rank": "0"}, 5.0)]
    scrape = sglang_scrape(parse_exposition(_page(rows)))
    assert scrape.gauges["num_running_reqs"] == 8.0 and scrape.models == ("a", "b")


def test_a_host_label_per_rank_does_not_split_a_tp_group_across_nodes() -> None:
    # TP 16 over two nodes: ranks 0-7 on n0, 8-15 on n1; one scheduler, one figure
    rows = [({"tp_rank": str(t), "host": f"n{t // 8}"}, 9.0) for t in range(16)]
    assert _running(rows) == 9.0


def test_counters_of_replica_ranks_are_counted_once_and_dp_groups_summed() -> None:
    rows = [({"dp_rank": str(d), "tp_rank": str(t)}, 1000.0 * (d + 1)) for d in range(2) for t in range(4)]
    text = _page(rows, "num_requests_total").replace("gauge", "counter")
    assert sglang_scrape(parse_exposition(text)).counters["num_requests_total"] == 3000.0
