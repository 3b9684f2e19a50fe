"""Scraping a `/metrics` endpoint (SGLang's, or dcgm-exporter's) every N seconds.

A host with `ssh` is read through its pooled SSH connection, over a direct TCP channel to
the URL's host and port as the remote host sees them (so `http://127.0.0.1:30000/metrics`
means the server's loopback, where it usually listens). A host without `ssh` is read over
plain TCP from this machine. One connection per host serves the log, the GPUs and this.

A slow or failing scrape is an event (`MetricsScrapeFailed`), never a stall: each scrape has
a timeout, and the next one starts on the interval whatever the last one did.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

from cockpit.model.session import Host
from cockpit.parse.gpu.dcgm_metrics import dcgm_samples, is_dcgm
from cockpit.parse.gpu.events import GpuEvent, GpuSamplesTaken, GpuStreamInterrupted
from cockpit.parse.metrics.events import MetricsEvent, MetricsScraped, MetricsScrapeFailed
from cockpit.parse.metrics.prom_text import ExpositionCache, ExpositionError, parse_exposition
from cockpit.sources.gpu.nvsmi_stream import ConnectionSource
from cockpit.sources.transport.http_get import HttpGetError, UrlParts, get, get_direct, split_url
from cockpit.sources.transport.ssh_target import SshTarget

DEFAULT_INTERVAL_S = 5.0
DEFAULT_DCGM_URL = "http://127.0.0.1:9400/metrics"  # dcgm-exporter's default listen address


def timeout_for(interval_s: float) -> float:
    """A scrape may take most of an interval, but never less than 2 s nor more than 30 s."""
    return min(30.0, max(2.0, 0.8 * interval_s))


async def fetch_text(url: str, *, pool: ConnectionSource | None = None, target: SshTarget | None = None,
                     timeout_s: float = 5.0) -> str:
    """The body of `url`, through `pool`'s connection to `target` when given, else directly.

    Raises HttpGetError with one sentence (refused, timed out, HTTP status, ...)."""
    parts = split_url(url)
    try:
        if pool is None or target is None:
            body = await get_direct(parts, timeout_s=timeout_s)
        else:
            body = await _get_via_ssh(parts, pool, target, timeout_s)
    except HttpGetError:
        raise
    except TimeoutError:
        raise HttpGetError(f"no answer from {url} within {timeout_s:g} s") from None
    except ConnectionRefusedError:
        raise HttpGetError(f"{parts.authority} refused the connection (is the server up, with "
                           "--enable-metrics?)") from None
    except Exception as exc:  # noqa: BLE001 -- every failure is a state in the pane, with its reason
        raise HttpGetError(_describe(exc, parts)) from None
    return body.decode("utf-8", errors="replace")


async def _get_via_ssh(parts: UrlParts, pool: ConnectionSource, target: SshTarget, timeout_s: float) -> bytes:
    if parts.scheme != "http":
        raise HttpGetError("https through an SSH connection is not supported: use the server's http:// port")
    writer = None
    try:
        async with asyncio.timeout(timeout_s):
            conn = await pool.connection(target)
            reader, writer = await conn.open_connection(parts.host, parts.port)
            return await get(reader, writer, parts)
    finally:
        if writer is not None:
            writer.close()


def _describe(exc: BaseException, parts: UrlParts) -> str:
    import asyncssh

    if isinstance(exc, asyncssh.ChannelOpenError):
        return f"the host could not connect to {parts.authority} ({exc.reason}): is the server up there?"
    text = str(exc) or type(exc).__name__
    return text if isinstance(exc, OSError) or hasattr(exc, "target") else f"{text} ({type(exc).__name__})"


async def scrape_once(url: str, *, host: str | None = None, pool: ConnectionSource | None = None,
                      target: SshTarget | None = None, timeout_s: float = 5.0,
                      clock: Callable[[], float] = time.time, cache: ExpositionCache | None = None) -> MetricsEvent:
    """One scrape as an event: the parsed text, or why there is none.

    `cache`: the feed's ExpositionCache (the same series every scrape: only values are read)."""
    started = time.monotonic()
    parse = cache.parse if cache is not None else parse_exposition
    try:
        text = await fetch_text(url, pool=pool, target=target, timeout_s=timeout_s)
        # prometheus-client's parser is pure Python (~40 ms for 2,000 series, see
        # benchmarks/bench_metrics_parse.py): off the event loop, so the panes never wait on it
        expo = parse(text) if len(text) < 16_384 else await asyncio.to_thread(parse, text)
    except (HttpGetError, ExpositionError) as exc:
        return MetricsScrapeFailed(host, url, str(exc), clock())
    return MetricsScraped(host, url, expo, clock(), time.monotonic() - started)


class MetricsFeed:
    """A host's `/metrics` every `interval_s`: a `MetricsEvent` per scrape, forever."""

    def __init__(self, url: str, *, host: str | None = None, pool: ConnectionSource | None = None,
                 target: SshTarget | None = None, interval_s: float = DEFAULT_INTERVAL_S, timeout_s: float | None = None,
                 clock: Callable[[], float] = time.time) -> None:
        self.url, self.host, self.pool, self.target = url, host, pool, target
        self.interval_s = interval_s
        self.timeout_s = timeout_s if timeout_s is not None else timeout_for(interval_s)
        self.clock = clock
        self.cache = ExpositionCache()
        via = f" via ssh {host}" if target is not None else ""
        self.description = f"metrics {url}{via} every {interval_s:g} s"

    async def stream(self) -> AsyncIterator[MetricsEvent]:
        loop = asyncio.get_running_loop()
        next_at = loop.time()
        while True:
            yield await scrape_once(self.url, host=self.host, pool=self.pool, target=self.target,
                                    timeout_s=self.timeout_s, clock=self.clock, cache=self.cache)
            next_at = max(next_at + self.interval_s, loop.time())  # no burst after a slow scrape
            await asyncio.sleep(next_at - loop.time())


class DcgmFeed:
    """dcgm-exporter's `/metrics` as GPU ticks (`GpuSamplesTaken`), the GPU pane's events."""

    def __init__(self, metrics: MetricsFeed) -> None:
        self.metrics = metrics
        self.description = f"DCGM: {metrics.description}"

    async def stream(self) -> AsyncIterator[GpuEvent]:
        host = self.metrics.host or "local"
        async for event in self.metrics.stream():
            if isinstance(event, MetricsScrapeFailed):
                yield GpuStreamInterrupted(host, event.reason, self.metrics.interval_s)
            elif not is_dcgm(event.exposition):
                yield GpuStreamInterrupted(
                    host, f"{event.url} has no DCGM_FI_ metrics: is it dcgm-exporter?", self.metrics.interval_s)
            else:
                samples = dcgm_samples(event.exposition, host=self.metrics.host, timestamp=event.taken_at)
                yield GpuSamplesTaken(self.metrics.host, tuple(samples), event.taken_at)


def metrics_feed_for_host(host: Host, pool: ConnectionSource | None, target: SshTarget | None = None) -> MetricsFeed | None:
    """The `/metrics` feed of a session host with a `metrics_url` (None without one)."""
    url = getattr(host, "metrics_url", None)
    if not url:
        return None
    return MetricsFeed(url, host=host.name, pool=pool if target is not None else None, target=target,
                       interval_s=float(getattr(host, "metrics_interval_s", None) or DEFAULT_INTERVAL_S))


def dcgm_feed_for_host(host: Host, pool: ConnectionSource | None, target: SshTarget | None = None) -> DcgmFeed:
    """A `gpu_source = "dcgm"` host: its dcgm-exporter (`dcgm_url`, default port 9400)."""
    url = getattr(host, "dcgm_url", None) or DEFAULT_DCGM_URL
    return DcgmFeed(MetricsFeed(url, host=host.name, pool=pool if target is not None else None, target=target,
                                interval_s=float(getattr(host, "gpu_interval_s", 1.0))))
