"""What the assistant's live resources say, from a LiveState (live_state.py): the log's last
lines with their source in words, the server run and its metrics, the GPUs, the topology.
Plain functions of what the state holds: no feed is read or waited on here.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime

from cockpit.assistant.live_state import FeedState, LiveState
from cockpit.live.log.metrics_snapshot import SERIES
from cockpit.parse.gpu.sample import GpuSample

LOG_LINES_DEFAULT = 100


def no_feed(what: str) -> str:
    return (f"No {what} in this session: add a host with {'log_path or log_command' if what == 'log' else 'gpu_source'} "
            "to [[hosts]] in the session file (or in the TUI).")


def _hosts(live: LiveState) -> dict[str, object]:
    """The SSH connections in words, host by host (none for a session on this machine)."""
    return {"hosts": dict(live.hosts)} if live.hosts else {}


def log_text(live: LiveState, feed: FeedState | None, lines: int) -> str:
    if feed is None:
        return no_feed("log") + "\n"
    head = [f"# {feed.description}"]
    head += [f"# {words}" for words in live.hosts.values() if words != feed.state]
    if feed.state and feed.state != feed.description:
        head.append(f"# {feed.state}")
    if feed.stopped:
        head.append(f"# stopped: {feed.stopped}")
    if feed.connected is False:
        head.append("# not connected: the lines below (if any) are from before")
    shown = list(live.lines)[-lines:] if lines > 0 else []
    if not live.lines_seen:
        head.append("# no log lines yet" if feed.connected is not False else
                    "# no log lines: the host was not reached")
    else:  # (the source's own notes, "── rotated ──", are among the lines shown)
        head.append(f"# the last {len(shown)} lines; {live.lines_seen:,} log lines read")
    return "\n".join([*head, *shown]) + "\n"


def server_state(live: LiveState, feed: FeedState | None) -> dict[str, object]:
    if feed is None:
        return {"log": no_feed("log")}
    snap = live.metrics
    out: dict[str, object] = {"log": feed.words(), **_hosts(live)}
    if snap is None or snap.run_state is None:
        out["run"] = None
        out["note"] = "no server run seen in the log yet"
    else:
        out["run"] = {"index": snap.run_index, "state": snap.run_state, "model": snap.model,
                      "dp_ranks": snap.dp_ranks, "last_error": snap.last_error}
    if snap is not None:
        out["metrics"] = {name: {"current": snap.current.get(name), "peak": snap.peak.get(name)} for name in SERIES}
        out["metrics_units"] = {"gen_throughput": "tokens/s (summed over DP ranks)", "running_req": "requests",
                                "queue_req": "requests", "token_usage": "fraction of the KV cache"}
        if snap.now is not None:
            out["log_time"] = datetime.fromtimestamp(snap.now, UTC).isoformat(timespec="seconds")
        out["lines_folded"] = snap.lines
        if snap.summary:
            out["summary"] = dict(snap.summary)
    if live.summary_before is not None and (snap is None or not snap.summary):
        out["summary_before_tail"] = live.summary_before
    return out


def _power(sample: GpuSample) -> str | None:
    if sample.power_w is None:
        return None
    if not sample.power_limit_w:
        return f"{sample.power_w:.0f} W"
    return f"{sample.power_w:.0f} W of {sample.power_limit_w:.0f} W ({sample.power_fraction:.0%})"


_GPU_FIELDS = ("index", "name", "power_w", "power_limit_w", "util_gpu_pct", "mem_used_mib", "mem_total_mib",
               "temp_c", "sm_clock_mhz", "sm_clock_max_mhz", "pcie_gen", "pcie_width", "numa_node",
               "throttle_reasons")


def gpu_state(live: LiveState, feed: FeedState | None) -> dict[str, object]:
    if feed is None:
        return {"gpus": no_feed("GPU source")}
    out: dict[str, object] = {"feed": feed.words(), **_hosts(live)}
    if live.gpu_problem:
        out["problem"] = live.gpu_problem
    tick = live.gpu
    if tick is None:
        out["gpus"] = []
        if not live.gpu_problem:
            out["note"] = "no sample yet" + ("" if feed.connected is not False else ": the host was not reached")
        return out
    rows = []
    for sample in tick.samples:
        row: dict[str, object] = {name: getattr(sample, name) for name in _GPU_FIELDS}
        row["throttle_reasons"] = list(sample.throttle_reasons)
        row["power_of_limit"] = _power(sample)
        rows.append({k: v for k, v in row.items() if v is not None and v != []})
    power = [s.power_w for s in tick.samples if s.power_w is not None]
    limit = [s.power_limit_w for s in tick.samples if s.power_limit_w]
    out.update(host=tick.host or "this machine",
               taken_at=datetime.fromtimestamp(tick.taken_at, UTC).isoformat(timespec="seconds"),
               age_s=round(max(0.0, time.time() - tick.taken_at), 1), gpus=rows)
    if power and len(limit) == len(tick.samples):
        total, cap = sum(power), sum(limit)
        out["total"] = f"{total:.0f} W of {cap:.0f} W ({total / cap:.0%})"
    return out


def topology_state(live: LiveState, feed: FeedState | None) -> dict[str, object]:
    if feed is None:
        return {"topology": no_feed("GPU source") if "gpu" not in live.feeds else
                "the GPU source gives no topology (dcgm-exporter has none)"}
    out: dict[str, object] = {"feed": feed.words(), **_hosts(live)}
    if live.topology is not None:
        out["topology"] = live.topology.to_json(detail=True)
    elif live.topology_problem:
        out["problem"] = live.topology_problem
    else:
        out["note"] = "not read yet" + ("" if feed.connected is not False else ": the host was not reached")
    return out
