"""FleetModel: Prometheus answers in, `FleetSnapshot`s out (plain Python, no I/O).

A host is dcgm-exporter's `Hostname` label, else the `instance` label's host part; a
server is an `instance` with `sglang:` (or the router's `sglang_`) series, placed under the
host its instance names. The model keeps the power and throughput history and every host it
has seen, so a host that stops answering is said ("no series"), never dropped or shown as
zero.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from cockpit.parse.metrics.fleet_snapshot import FleetGpu, FleetHost, FleetServer, FleetSnapshot
from cockpit.sources.metrics.fleet_queries import HISTORY_POINTS, LIMIT, POWER, PRESENCE, SERVER_FAMILIES, UTIL
from cockpit.sources.metrics.prometheus_api import PrometheusError, PromSeries


def instance_host(instance: str) -> str:
    """`node-a:9400` -> `node-a`; `[::1]:9400` -> `::1`; no port: as it is."""
    if instance.startswith("["):
        return instance[1:].split("]", 1)[0]
    if instance.count(":") == 1:
        return instance.rsplit(":", 1)[0]
    return instance


def host_of(labels: Mapping[str, str]) -> str:
    """dcgm-exporter's `Hostname` label, else the instance's host part."""
    return labels.get("Hostname") or instance_host(labels.get("instance", "")) or "?"


def natural_key(name: str) -> list[Any]:
    """node-2 before node-10."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", name)]


def _num(v: float) -> float | None:
    return None if math.isnan(v) else v

class FleetModel:
    """Prometheus answers in, `FleetSnapshot`s out; keeps the history and who was seen."""

    def __init__(self, source: str, url: str, *, expected: Mapping[str, Sequence[str]] | None = None,
                 history_s: float = 3 * 3600.0, min_gap_s: float = 0.0) -> None:
        """`expected`: session host name -> other names Prometheus may know it by (its ssh host)."""
        self.source, self.url, self.history_s = source, url, history_s
        self.expected = {k: tuple(v) for k, v in (expected or {}).items()}
        self.min_gap_s = min_gap_s  # history keeps one point per gap (live refreshes are denser)
        self._power: dict[str, deque[tuple[float, float]]] = {}
        self._tput: dict[str, deque[tuple[float, float]]] = {}
        self._seen: dict[str, float] = {}
        self._last: FleetSnapshot | None = None

    # ----- history -----------------------------------------------------------------------
    def _push(self, store: dict[str, deque[tuple[float, float]]], key: str, t: float, v: float) -> None:
        dq = store.setdefault(key, deque(maxlen=8 * HISTORY_POINTS))
        if dq and t - dq[-1][0] < self.min_gap_s:
            return
        if dq and t <= dq[-1][0]:
            return
        dq.append((t, v))

    def load_history(self, power: Sequence[PromSeries], throughput: Sequence[PromSeries]) -> None:
        per_host: dict[str, dict[float, float]] = {}
        for s in power:
            by_t = per_host.setdefault(host_of(s.labels), {})
            for t, v in s.points:
                if not math.isnan(v):
                    by_t[t] = by_t.get(t, 0.0) + v
        for host, by_t in per_host.items():
            for t in sorted(by_t):
                self._push(self._power, host, t, by_t[t])
            self._seen.setdefault(host, max(by_t) if by_t else 0.0)
        for s in throughput:
            inst = s.labels.get("instance", "?")
            for t, v in s.points:
                if not math.isnan(v):
                    self._push(self._tput, inst, t, v)

    # ----- refresh -------------------------------------------------------------------------
    def update(self, gpus: Sequence[PromSeries], servers: Sequence[PromSeries], up: Sequence[PromSeries],
               at: float) -> FleetSnapshot:
        alias: dict[str, str] = {}  # instance host part -> host key
        gpu_vals: dict[str, dict[str, dict[str, float]]] = {}
        for s in gpus:
            host = host_of(s.labels)
            alias.setdefault(instance_host(s.labels.get("instance", "")), host)
            idx = s.labels.get("gpu", "?")
            gpu_vals.setdefault(host, {}).setdefault(idx, {})[s.labels.get("__name__", "")] = s.value
        srv_vals: dict[str, dict[str, float | None]] = {}
        spelling: dict[str, set[str]] = {}
        for s in servers:
            inst, fig = s.labels.get("instance", "?"), s.labels.get("fig", "")
            srv_vals.setdefault(inst, {})[fig] = _num(s.value)
            if fig == "has_any" and s.labels.get("spelling"):
                spelling.setdefault(inst, set()).add(s.labels["spelling"])
        hosts: dict[str, dict[str, Any]] = {}

        def host_entry(name: str) -> dict[str, Any]:
            return hosts.setdefault(name, {"gpus": [], "servers": [], "down": [], "missing": ()})

        for host, per_gpu in gpu_vals.items():
            entry = host_entry(host)
            for idx in sorted(per_gpu, key=natural_key):
                v = per_gpu[idx]
                entry["gpus"].append(FleetGpu(idx, _maybe(v.get(POWER)), _maybe(v.get(LIMIT)), _maybe(v.get(UTIL))))
            entry["missing"] = tuple(n for n in (POWER, LIMIT, UTIL) if all(n not in v for v in per_gpu.values()))
            total = sum(g.power_w for g in entry["gpus"] if g.power_w is not None)
            if any(g.power_w is not None for g in entry["gpus"]):
                self._push(self._power, host, at, total)
        for inst, figs in srv_vals.items():
            h = instance_host(inst)
            host = alias.get(h, h)
            missing = tuple(fam for fam in PRESENCE if f"has_{fam}" not in figs)
            if spelling.get(inst) == {"sglang_"}:  # said as this server spells them (the router's)
                said = tuple("sglang_" + fam.removeprefix("sglang:") for fam in missing)
            else:
                said = missing
            figs = {fig: figs.get(fig) for fig, fam in SERVER_FAMILIES.items() if fam not in missing}
            if figs.get("gen_tok_s") is not None:
                self._push(self._tput, inst, at, figs["gen_tok_s"])  # type: ignore[arg-type]
            host_entry(host)["servers"].append(FleetServer(
                inst, dict(figs), said, tuple(self._tput.get(inst, ()))))
        for s in up:
            if s.value == 0:
                inst = s.labels.get("instance", "?")
                h = instance_host(inst)
                job = s.labels.get("job")
                host_entry(alias.get(h, h))["down"].append(f"{inst}" + (f" ({job})" if job else ""))
        for name in hosts:
            self._seen[name] = at
        out: list[FleetHost] = []
        session_of = self._session_names(set(hosts) | set(self._seen))
        for name, e in hosts.items():
            rows: list[FleetServer] = sorted(e["servers"], key=lambda srv: natural_key(srv.instance))
            has_data = bool(e["gpus"] or rows)
            note = f"Prometheus cannot scrape {', '.join(e['down'])} (up == 0)" if e["down"] else ""
            out.append(FleetHost(
                name, "ok" if has_data else "down", note, tuple(e["gpus"]), tuple(rows), e["missing"],
                tuple(self._power.get(name, ())), session_of.get(name)))
        for name, last in self._seen.items():
            if name not in hosts:
                when = time.strftime("%H:%M:%S", time.localtime(last))
                out.append(FleetHost(name, "missing", f"no series in Prometheus since {when}",
                                     power_history=tuple(self._power.get(name, ())),
                                     session_host=session_of.get(name)))
        known = {h.session_host for h in out if h.session_host}
        for name in self.expected:
            if name not in known:
                out.append(FleetHost(name, "missing", "a session host with no series in Prometheus (no "
                                     "Hostname or instance label names it)", session_host=name))
        out.sort(key=lambda h: natural_key(h.name))
        self._last = FleetSnapshot(self.source, self.url, at, tuple(out), "ok", history_s=self.history_s)
        return self._last

    def failed(self, error: PrometheusError, at: float) -> FleetSnapshot:
        """The query failed: the last figures stay, marked failing, with the reason."""
        last = self._last
        self._last = FleetSnapshot(self.source, self.url, at, last.hosts if last else (), "failing",
                                   str(error), error.kind, self.history_s)
        return self._last

    def _session_names(self, names: Iterable[str]) -> dict[str, str]:
        out: dict[str, str] = {}
        for name in names:
            for session_name, aliases in self.expected.items():
                if name == session_name or name in aliases:
                    out[name] = session_name
        return out


def _maybe(v: float | None) -> float | None:
    return None if v is None else _num(v)
