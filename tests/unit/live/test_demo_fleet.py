"""The demo's Fleet tab: PromQL answers recorded from a real Prometheus through the real
FleetFeed, at the time asked, moving with a load swell; what Prometheus said about limits,
missing families and a target down stays as it was."""

from __future__ import annotations

import asyncio

from cockpit.demo.fleet import SOURCE, demo_fleet_feed
from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot

T0 = 1_800_000_000.0


def snapshots(*times: float) -> list[FleetSnapshot]:
    clock = [times[0]]
    feed = demo_fleet_feed(clock=lambda: clock[0])

    async def go() -> list[FleetSnapshot]:
        assert await feed.load_history() is None
        out = []
        for t in times:
            clock[0] = t
            out.append(await feed.refresh())
        return out

    return asyncio.run(go())


def test_two_refreshes_show_different_figures_and_the_same_fleet():
    first, second = snapshots(T0, T0 + 2)
    assert (first.at, second.at) == (T0, T0 + 2)  # the feed's clock, not the recording's time
    a, b = ({h.name: h for h in s.hosts} for s in (first, second))
    assert [(h.name, h.state) for h in first.hosts] == [("node-a", "ok"), ("node-b", "ok"), ("node-c", "down")]
    assert a["node-a"].power_w != b["node-a"].power_w
    assert a["node-a"].servers[0].get("gen_tok_s") != b["node-a"].servers[0].get("gen_tok_s")
    assert a["node-b"].servers[0].get("ttft_p99") != b["node-b"].servers[0].get("ttft_p99")
    assert a["node-a"].limit_w == b["node-a"].limit_w == 5600  # limits do not follow the load
    assert a["node-b"].missing == ("DCGM_FI_DEV_POWER_MGMT_LIMIT",)  # said, as Prometheus said it
    assert "node-c:9400" in a["node-c"].note
    assert first.source == SOURCE == "demo replay"


def test_the_history_ends_now_and_swells():
    (snap,) = snapshots(T0)
    node_a = snap.hosts[0]
    times = [t for t, _ in node_a.power_history]
    assert times[-1] == T0 and times[0] <= T0 - snap.history_s + 10
    watts = [w for _, w in node_a.power_history]
    assert max(watts) - min(watts) > 0.1 * max(watts)  # a swell the sparkline shows, not a flat line
    tput = node_a.servers[0].history
    assert len(tput) > 100 and tput[-1][0] == T0


def test_no_gpu_goes_over_its_limit_through_the_swell():
    for snap in snapshots(*(T0 + k * 7.0 for k in range(60))):
        for g in snap.hosts[0].gpus:
            assert g.power_w is not None and g.limit_w is not None and g.power_w <= g.limit_w
            assert g.util_pct is not None and g.util_pct <= 100
