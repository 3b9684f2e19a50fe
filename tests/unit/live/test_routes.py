"""The routing table (live/routes.py) against the closed union of live items (live/items.py):
every member of `LiveItem` is taken by some view, the table names no type outside the union,
each kind's own view takes exactly its alias's members, and the live state folds each member
it is routed (a type added to the union but not to a fold or a view fails here)."""

from __future__ import annotations

from pathlib import Path
from typing import get_args

import pytest

from cockpit.live.items import FleetItem, GpuItem, LiveItem, LogItem, MetricsItem, TopologyItem
from cockpit.live.log.items import SourceState, SummaryBefore, lines_of
from cockpit.live.log.metrics_snapshot import MetricsSnapshot
from cockpit.live.routes import ROUTES, state_view, views_of
from cockpit.live.state import LiveState
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import parse_topology
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.log.sglang_log import parse_line
from cockpit.parse.metrics.events import MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.parse.metrics.prom_text import parse_exposition

MEMBERS = set(get_args(LiveItem))
KIND_ALIASES = {"log": LogItem, "gpu": GpuItem, "topology": TopologyItem, "metrics": MetricsItem,
                "fleet": FleetItem}
URL = "http://127.0.0.1:30000/metrics"
DEMO_TOPO = Path(__file__).resolve().parents[3] / "sessions" / "demo" / "nvidia-smi-topo.txt"

# One real item of each member (the parsers' and folds' own constructors)
SAMPLES: list[tuple[str, LiveItem]] = [
    ("log", lines_of([parse_line("[2026-01-01 00:00:00] Decode batch. #running-req: 3, #queue-req: 0")], ())),
    ("log", MetricsSnapshot()),
    ("log", SourceState("tail gpu1:/var/log/sglang.log", connected=True)),
    ("log", SummaryBefore({"lines": 10})),
    ("gpu", GpuSamplesTaken("gpu1", (GpuSample(index=0, name="H100", power_w=300.0, host="gpu1"),), 100.0)),
    ("gpu", GpuStreamInterrupted("gpu1", "connection lost", 4)),
    ("gpu", GpuSourceUnavailable("no nvidia-smi on gpu1", host="gpu1")),
    ("topology", parse_topology(DEMO_TOPO.read_text(encoding="utf-8"))),
    ("metrics", MetricsScraped("gpu1", URL, parse_exposition("sglang:num_running_reqs 3\n"), 1000.0, 0.01)),
    ("metrics", MetricsScrapeFailed("gpu1", URL, "connection refused", 1005.0)),
    ("fleet", FleetSnapshot("prometheus", "http://127.0.0.1:9090", 1000.0)),
]


def test_the_union_is_the_five_kinds_aliases() -> None:
    assert MEMBERS == {t for alias in KIND_ALIASES.values() for t in (get_args(alias) or (alias,))}
    assert set(ROUTES) == set(KIND_ALIASES)


def test_every_member_of_the_union_is_routed_and_nothing_else_is() -> None:
    routed = {t for routes in ROUTES.values() for _view, takes in routes for t in takes}
    assert routed == MEMBERS, (sorted(t.__name__ for t in MEMBERS - routed),
                               sorted(t.__name__ for t in routed - MEMBERS))


@pytest.mark.parametrize("kind", sorted(KIND_ALIASES))
def test_each_kinds_own_view_takes_exactly_its_alias(kind: str) -> None:
    alias = KIND_ALIASES[kind]
    view, takes = ROUTES[kind][0]
    assert view == state_view(kind) == kind
    assert set(takes) == set(get_args(alias) or (alias,))


def test_a_sample_of_every_member_is_folded_by_the_live_state() -> None:
    assert {type(item) for _kind, item in SAMPLES} == MEMBERS  # the samples cover the union
    state = LiveState()
    for n, (kind, item) in enumerate(SAMPLES, start=1):
        assert kind in views_of(kind, item), f"{type(item).__name__} is not routed on a {kind} feed"
        state.take(f"{kind}@gpu1" if kind != "fleet" else kind, item)
        assert state.taken == n, f"the live state passed over a {type(item).__name__}"
    snapshot = state.snapshot("gpu1")
    assert snapshot.log is not None and snapshot.log.state == "tail gpu1:/var/log/sglang.log"
    assert snapshot.topology is not None and snapshot.topology.matrix is not None
    assert snapshot.server is not None and snapshot.fleet is not None
    assert snapshot.gpu is not None and snapshot.gpu.problem == "no nvidia-smi on gpu1"


def test_an_item_of_another_kind_is_not_routed() -> None:
    state = LiveState()
    state.take("gpu@gpu1", MetricsSnapshot())  # a log's item on a GPU feed
    assert views_of("gpu", MetricsSnapshot()) == [] and state.taken == 0 and state.gpu("gpu1") is None
