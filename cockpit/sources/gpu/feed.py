"""GPU and topology feeds for the TUI: the `LiveFeed` shape of `cockpit.sources.feeds`
(`description` + async `stream()`), built on the GPU sources. No Textual here.

* `NvmlFeed`: local GPUs through NVML, a `GpuSamplesTaken` per tick; no driver gives
  one `GpuSourceUnavailable` *item* (the pane shows it) instead of raising.
* `NvsmiFeed`: one remote host's `nvidia-smi -lms` stream (ticks, interruptions, and a
  final `GpuSourceUnavailable` when the host has no usable driver).
* `NvmlTopologyFeed`, `RemoteTopologyFeed`, `FileTopologyFeed`: one `TopologyMatrix`
  (or one `GpuSourceUnavailable`), then the stream ends.
* `gpu_feed_for_host(host, pool)`: the right GPU feed for a session `Host`, sampled every
  `host.gpu_interval_s`.

Memory stays bounded: feeds keep no history; the pane folds ticks into a `PowerHistory`
of `history_points(...)` points per GPU.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator
from pathlib import Path
from types import ModuleType
from typing import Any

from cockpit.model.session import Host
from cockpit.parse.gpu.events import GpuEvent, GpuSourceUnavailable
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix, TopologyParseError, parse_topology
from cockpit.sources.gpu.nvml_sampler import NvmlSampler
from cockpit.sources.gpu.nvsmi_stream import ConnectionSource, NvsmiStream, fetch_topology, target_label
from cockpit.sources.transport.ssh_target import SshTarget

DEFAULT_INTERVAL_S = 1.0
"""The session host's `gpu_interval_s` default."""
HISTORY_WINDOW_S = 15 * 60
"""How far back the GPU pane keeps power history (sparklines, tokens per joule)."""


def interval_of(host: Host | None) -> float:
    """The sampling interval of a session host (`gpu_interval_s`), 1 s when unset or invalid."""
    value = getattr(host, "gpu_interval_s", None)
    try:
        value = float(value) if value is not None else DEFAULT_INTERVAL_S
    except (TypeError, ValueError):
        return DEFAULT_INTERVAL_S
    return value if value > 0 and math.isfinite(value) else DEFAULT_INTERVAL_S


def history_points(interval_s: float = DEFAULT_INTERVAL_S, window_s: float = HISTORY_WINDOW_S) -> int:
    """Points per GPU that cover `window_s` at `interval_s` (at least 60, at most 20 000)."""
    return max(60, min(20_000, math.ceil(window_s / max(interval_s, 0.05))))


async def _opened(sampler: NvmlSampler) -> GpuSourceUnavailable | None:
    """Open the sampler; when it cannot (no driver, no GPU), why, as the item the pane shows."""
    try:
        await sampler.open()
    except GpuSourceUnavailable as exc:
        return exc
    return None


class NvmlFeed:
    """Local GPUs through NVML, a tick every `interval_s`."""

    def __init__(self, interval_s: float = DEFAULT_INTERVAL_S, *, nvml: ModuleType | Any | None = None,
                 pcie_throughput: bool = False) -> None:
        self.interval_s = interval_s
        self.description = f"NVML: local GPUs every {interval_s:g} s"
        self._nvml = nvml
        self._pcie_throughput = pcie_throughput

    async def stream(self) -> AsyncIterator[GpuEvent]:
        sampler = NvmlSampler(interval_s=self.interval_s, nvml=self._nvml, pcie_throughput=self._pcie_throughput)
        if (unavailable := await _opened(sampler)) is not None:
            yield unavailable
            return
        try:
            async for event in sampler.samples():
                yield event
        finally:
            await sampler.close()


class NvsmiFeed:
    """One host's `nvidia-smi --query-gpu ... -lms N` stream over the SSH pool."""

    # target: an SshTarget; the session Host itself when none is given (see gpu_feed_for_host)
    def __init__(self, pool: ConnectionSource, target: Any, host: str | None = None,
                 interval_ms: int = 1000, **stream_options: Any) -> None:
        self.pool = pool
        self.target = target
        self.host = host or target_label(target)
        self.interval_ms = int(interval_ms)
        self.interval_s = self.interval_ms / 1000
        self.description = f"nvidia-smi on {self.host} every {self.interval_ms / 1000:g} s"
        self._options = stream_options
        self._stream: NvsmiStream | None = None

    async def stream(self) -> AsyncIterator[GpuEvent]:
        self._stream = NvsmiStream(self.pool, self.target, host=self.host, interval_ms=self.interval_ms,
                                   **self._options)
        try:
            async for event in self._stream.events():
                yield event
        finally:
            self._stream.close()

    def close(self) -> None:
        if self._stream is not None:
            self._stream.close()


def gpu_feed_for_host(host: Host, pool: ConnectionSource | None = None,
                      target: SshTarget | None = None) -> NvmlFeed | NvsmiFeed | None:
    """The GPU feed a session `Host` asks for (`gpu_source`), or None for `none`.

    `target` defaults to the host itself (what the pool connects to)."""
    source = str(getattr(getattr(host, "gpu_source", None), "value", getattr(host, "gpu_source", "none")))
    interval = interval_of(host)
    if source == "nvml":
        return NvmlFeed(interval)
    if source == "nvidia-smi":
        if pool is None:
            raise ValueError("an nvidia-smi GPU feed needs the SSH pool")
        return NvsmiFeed(pool, host if target is None else target, host=getattr(host, "name", None),
                         interval_ms=round(interval * 1000))
    return None


class NvmlTopologyFeed:
    """The local topology from NVML, once."""

    def __init__(self, *, nvml: ModuleType | Any | None = None) -> None:
        self.description = "NVML: local GPU topology"
        self._nvml = nvml

    async def stream(self) -> AsyncIterator[TopologyMatrix | GpuSourceUnavailable]:
        sampler = NvmlSampler(nvml=self._nvml, pcie_throughput=False)
        if (unavailable := await _opened(sampler)) is not None:
            yield unavailable
            return
        try:
            yield await sampler.topology()
        finally:
            await sampler.close()


class RemoteTopologyFeed:
    """`nvidia-smi topo -m` run once on a remote host."""

    def __init__(self, pool: ConnectionSource, target: SshTarget, host: str | None = None, *, timeout_s: float = 30.0) -> None:
        self.pool = pool
        self.target = target
        self.host = host or target_label(target)
        self.timeout_s = timeout_s
        self.description = f"nvidia-smi topo -m on {self.host}"

    async def stream(self) -> AsyncIterator[TopologyMatrix | GpuSourceUnavailable]:
        try:
            matrix = await fetch_topology(self.pool, self.target, timeout_s=self.timeout_s)
        except GpuSourceUnavailable as exc:
            yield exc
            return
        except TopologyParseError as exc:
            yield GpuSourceUnavailable(f"{self.host}: {exc}", host=self.host)
            return
        yield matrix


class FileTopologyFeed:
    """A saved `nvidia-smi topo -m` (a paste, a check_env dump, the demo's capture)."""

    def __init__(self, path: Path | str, host: str | None = None) -> None:
        self.path = Path(path)
        self.host = host
        self.description = f"topology from {self.path.name}"

    async def stream(self) -> AsyncIterator[TopologyMatrix | GpuSourceUnavailable]:
        try:
            text = self.path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            yield GpuSourceUnavailable(f"cannot read {self.path}: {exc.strerror or exc}", host=self.host)
            return
        try:
            yield parse_topology(text)
        except TopologyParseError as exc:
            yield GpuSourceUnavailable(f"{self.path.name}: {exc}", host=self.host)
