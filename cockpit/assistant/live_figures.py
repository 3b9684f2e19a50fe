"""The server's own `/metrics` figures and the fleet's, for cockpit mcp's live resources
(issue 23 item 7: the assistant saw no server metrics and no fleet).

Read when asked, through the same code as the TUI's panes: each host's `metrics_url`
scraped twice a short gap apart (a rate needs two scrapes) by `scrape_once` and folded by
`ServerMetricsFold`, over the host's SSH connection where it has `ssh`; each
`[[prometheus]]` source asked once by its `FleetFeed`. Nothing is started on a host.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from typing import Any

from cockpit.live.metrics.server_metrics import ServerMetrics, ServerMetricsFold
from cockpit.model.session import Host, Session
from cockpit.sources.host_feeds import HostFeeds
from cockpit.sources.metrics.fleet_feed import FleetFeed
from cockpit.sources.metrics.scrape import scrape_once

RATE_GAP_S = 1.0
"""Seconds between the two scrapes a rate is read over."""


def _round(value: object) -> object:
    if isinstance(value, float):
        return round(value, 4)
    if isinstance(value, Mapping):
        return {k: _round(v) for k, v in value.items()}
    return value


def figures(m: ServerMetrics) -> dict[str, object]:
    """What the metrics pane shows of a server, as plain data (latencies in seconds)."""
    out: dict[str, object] = {"state": m.state}
    if m.error:
        out["error"] = m.error
    if m.models:
        out["models"] = list(m.models)
    if m.state != "ok":
        return out
    out.update(gauges=_round(m.gauges), rates_per_s=_round(m.rates),
               latency_s_between_the_scrapes=_round(m.latency), latency_s_since_start=_round(m.latency_all),
               per_dp_rank=_round(m.gauges_by_dp))
    if m.missing:
        out["missing"] = list(m.missing)
    return out


async def server_metrics(session: Session, host_feeds: HostFeeds | None = None, *,
                         gap_s: float = RATE_GAP_S) -> dict[str, object]:
    """Host -> its server's figures, for every host with `metrics_url`. `host_feeds`: the live
    state's HostFeeds (its SSH pool and targets, with `cockpit mcp`'s SSH options)."""
    hosts = [h for h in session.hosts if h.metrics_url]
    if not hosts:
        return {"hosts": {}, "note": "no host has metrics_url (the server's /metrics, e.g. "
                                     "http://127.0.0.1:30000/metrics, as the host sees it)"}

    async def one(host: Host) -> dict[str, object]:
        target = host_feeds.target(host) if host_feeds is not None and host.ssh else None
        if host.ssh and target is None:
            return {"state": "failing", "error": f"{host.name} is reached over SSH and no SSH pool is at hand"}
        pool = host_feeds.pool if target is not None and host_feeds is not None else None
        url = host.metrics_url or ""  # only hosts with one are asked
        fold = ServerMetricsFold(60.0)
        snapshot = fold.snapshot
        for n in range(2):
            if n:
                await asyncio.sleep(gap_s)
            snapshot = fold.feed(await scrape_once(url, host=host.name, pool=pool, target=target))
            if snapshot.state == "failing":
                break
        return {"url": host.metrics_url, **figures(snapshot)}

    found = await asyncio.gather(*(one(h) for h in hosts))
    return {"hosts": {h.name: f for h, f in zip(hosts, found)}}


async def fleet(session: Session,
                make_feed: Callable[[Any, Session], FleetFeed] = FleetFeed.for_session) -> dict[str, Any]:
    """`[[prometheus]]` name -> its fleet now: hosts, GPUs' power of limit, servers' figures."""
    if not session.prometheus:
        return {"sources": {}, "note": "no [[prometheus]] source in the session"}
    out: dict[str, object] = {}
    for source in session.prometheus:
        feed = make_feed(source, session)
        await feed.resolve_window()
        snap = await feed.refresh()
        out[source.name] = {"description": feed.description, **snap.to_json()}
    return {"sources": out}
