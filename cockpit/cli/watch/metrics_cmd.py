"""`cockpit metrics TARGET`: a server's (or dcgm-exporter's) Prometheus metrics, headless.

TARGET is an http(s):// URL (read from here, or through `--via HOST`'s SSH connection),
`host:NAME` for a session host (its `metrics_url`, or `dcgm_url` with `--dcgm`, through its
`ssh`), or a file of exposition text (`-` for stdin). A file is read once.

`prom:NAME` (a session's `[[prometheus]]`) or `--prometheus URL` prints the fleet instead:
every host's GPUs and every server's throughput and latency, as the Fleet tab shows it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import sys
import time
from typing import TYPE_CHECKING, Any

from cockpit.cli.seconds_arg import INTERVAL, TIMEOUT, WINDOW
from cockpit.cli.watch.host_arg import file_word, first_connect, looks_like_file, resolve_failed
from cockpit.ground.sanitize import sanitize
from cockpit.model.figures import figure, number, share

if TYPE_CHECKING:
    from cockpit.parse.metrics.prom_text import Exposition
    from cockpit.sources.transport.ssh_target import SshTarget


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "metrics",
        help="a server's /metrics: TTFT / ITL / e2e percentiles, token and request rates, DCGM GPUs",
        description="Read SGLang's (or dcgm-exporter's) Prometheus metrics from a URL, a session host "
        "(host:NAME) or a file of exposition text (- for stdin).",
    )
    p.add_argument("target", metavar="URL|host:NAME|prom:NAME|FILE", nargs="?")
    p.add_argument("--json", action="store_true", help="print JSON (one object; a JSON line per scrape when streaming)")
    p.add_argument("--once", action="store_true", help="one scrape, then exit")
    p.add_argument("--interval", type=INTERVAL, metavar="S", help="seconds between scrapes (default: the host's, else 5)")
    p.add_argument("--count", type=int, default=0, metavar="N", help="stop after N scrapes (default: until Ctrl-C)")
    p.add_argument("--window", type=WINDOW, default=60.0, metavar="S", help="percentile window in seconds (default 60)")
    p.add_argument("--timeout", type=TIMEOUT, metavar="S", help="seconds one scrape may take (default: from the interval)")
    p.add_argument("--via", metavar="HOST", help="URL: read it through this SSH host ([user@]host[:port] or an alias)")
    p.add_argument("--session", metavar="FILE", help="host:NAME: the session file (default: the last one opened)")
    p.add_argument("--dcgm", action="store_true", help="host:NAME: read the host's dcgm-exporter (dcgm_url)")
    p.add_argument("--ssh-config", action="append", metavar="FILE", help="ssh_config file(s) to read instead of ~/.ssh/config")
    p.add_argument("--known-hosts", metavar="FILE", help="known_hosts file")
    p.add_argument("--prometheus", metavar="URL", help="print the fleet read through this Prometheus")
    p.add_argument("--auth-env", metavar="NAME", help="--prometheus: the environment variable with "
                   "user:password or a bearer token")
    p.add_argument("--match", metavar="SELECTOR", help="fleet: only the targets these label matchers name "
                   "('{job=\"sglang\",cluster=\"a\"}'; a prom:NAME's own match otherwise)")
    p.add_argument("--rate-window", type=INTERVAL, metavar="S", help="fleet: rate and percentile window in seconds "
                   "(default: from the targets' scrape interval)")
    p.add_argument("--width", type=int, default=100, metavar="N", help="fleet text: columns (default 100)")
    p.set_defaults(func=cmd_metrics)


def _fail(message: str, code: int = 1) -> int:
    print(sanitize(f"cockpit: {message}", multiline=True), file=sys.stderr)
    return code


def _ssh_target(spec: str, args: argparse.Namespace, jump: str | None = None) -> SshTarget:
    from cockpit.sources.transport.ssh_pool import SshTarget, with_config

    config = tuple(args.ssh_config) if args.ssh_config else None
    hop = with_config(SshTarget.parse(jump), config, args.known_hosts) if jump else None
    return with_config(SshTarget.parse(spec, jump=hop), config, args.known_hosts)


def report(expo: Exposition, host: str | None, fold_snapshot: Any | None = None) -> dict[str, Any]:
    """The JSON object of one scrape: families, SGLang figures, missing names, GPUs, latency."""
    from cockpit.parse.gpu.dcgm_metrics import dcgm_samples
    from cockpit.parse.metrics.sglang_metrics import MISSING_HINTS, sglang_scrape

    scrape = sglang_scrape(expo)
    gpus = dcgm_samples(expo, host=host)
    out: dict[str, Any] = {
        "families": dict(expo.families),
        "series": expo.series,
        "sglang": scrape.figures(),
        "sglang_spellings": sorted(scrape.spellings),
        "missing": list(scrape.missing) if scrape.is_sglang else [],
        "missing_hints": {n: MISSING_HINTS[n.removeprefix("sglang:")] for n in scrape.missing
                          if scrape.is_sglang and n.removeprefix("sglang:") in MISSING_HINTS},
        "models": list(scrape.models),
        "gpus": [g.to_json() for g in gpus],
    }
    if fold_snapshot is not None:
        m = fold_snapshot
        out.update(
            state=m.state, run_index=m.run_index, rates=dict(m.rates),
            latency_since_start_s={k: dict(v) for k, v in m.latency_all.items()},
            latency_window_s={k: dict(v) for k, v in m.latency.items()}, window_s=m.window_s,
            window_span_s=m.window_span_s,
        )
    return out


def _ms(v: float | None) -> str:
    """A latency in the one formatter's words (model/figures.py): `920 ms`, `12.3 ms`, `1.8 s`."""
    if v is None or math.isnan(v):
        return "—"
    return f"{number(v * 1000, decimals=1)} ms" if v < 1 else figure(v, "s")


def render(out: dict[str, Any]) -> str:
    lines = []
    s = out["sglang"]
    if s:
        models = ", ".join(out["models"]) or "?"
        usage = s.get("token_usage")
        lines.append(f"SGLang ({models}): running {number(s.get('num_running_reqs'))}  "
                     f"queued {number(s.get('num_queue_reqs'))}  "
                     f"token usage {'—' if usage is None else share(usage)}  "
                     f"gen {figure(s.get('gen_throughput'), 'tok/s')}")
    rates = out.get("rates") or {}
    if rates:
        lines.append("rates between the last 2 scrapes: " + "  ".join(
            f"{k.removesuffix('_per_s').replace('_', ' ')} {number(v)}/s" for k, v in rates.items()))
    for key, title in (("latency_window_s", "window"), ("latency_since_start_s", "since start")):
        lat = out.get(key) or {}
        for name, q in lat.items():
            if any(v is not None for v in q.values()):
                lines.append(f"{name.upper():5} {title:11} " + "  ".join(f"{p} {_ms(v)}" for p, v in q.items()))
    for name in out["missing"]:
        hint = out["missing_hints"].get(name)
        lines.append(f"no {name}" + (f": {hint}" if hint else ""))
    for g in out["gpus"]:
        power = f"{g['power_w']:.0f} W" if g["power_w"] is not None else "? W"
        limit = f"/{g['power_limit_w']:.0f} W" if g["power_limit_w"] is not None else " (no limit exported)"
        lines.append(f"GPU {g['index']} {g['host'] or ''} {g['name'] or ''}: {power}{limit}  util "
                     f"{g['util_gpu_pct'] if g['util_gpu_pct'] is not None else '?'} %  "
                     f"{g['temp_c'] if g['temp_c'] is not None else '?'} C")
    if not lines:
        lines.append(f"{out['series']} series, no SGLang or DCGM families")
    return "\n".join(sanitize(line) for line in lines)


def cmd_metrics(args: argparse.Namespace) -> int:
    from cockpit.parse.metrics.prom_text import ExpositionError, parse_exposition

    target = args.target
    if args.prometheus or (target or "").startswith("prom:"):
        from cockpit.cli.watch.fleet_cmd import cmd_fleet

        return cmd_fleet(args)
    if target is None:
        return _fail("give a TARGET (URL, host:NAME, prom:NAME or a file) or --prometheus URL", 2)
    if target.startswith(("http://", "https://")) or target.startswith("host:"):
        return asyncio.run(_scrape_loop(args))
    from cockpit.sources.input_file import InputTooLarge, read_input

    try:
        text = read_input(target).decode("utf-8", "replace")
    except OSError as exc:
        return _fail(f"{target}: {exc.strerror or exc}")
    except InputTooLarge as exc:
        return _fail(str(exc))
    try:
        expo = parse_exposition(text)
    except ExpositionError as exc:
        return _fail(f"{target}: {exc}")
    from cockpit.live.metrics.server_metrics import ServerMetricsFold
    from cockpit.parse.metrics.sglang_metrics import sglang_scrape

    out = report(expo, None, ServerMetricsFold(args.window).add(sglang_scrape(expo), 0.0))
    print(json.dumps(out, indent=2) if args.json else render(out))
    return 0


async def _scrape_loop(args: argparse.Namespace) -> int:
    from cockpit.live.metrics.server_metrics import ServerMetricsFold
    from cockpit.parse.metrics.events import MetricsScrapeFailed
    from cockpit.parse.metrics.sglang_metrics import sglang_scrape
    from cockpit.sources.metrics.scrape import DEFAULT_DCGM_URL, DEFAULT_INTERVAL_S, MetricsFeed

    url, host, ssh, jump, interval = args.target, None, args.via, None, args.interval
    if args.target.startswith("host:"):
        from cockpit.cli.recent import named_in_session

        found = named_in_session(args, "hosts", "host")
        if isinstance(found, int):
            return found
        path, _session, h = found
        name = h.name
        url = (h.dcgm_url or DEFAULT_DCGM_URL) if args.dcgm else h.metrics_url
        if not url:
            return _fail(f"host {name!r} has no metrics_url in {path}", 2)
        host, ssh, jump = name, h.ssh, h.jump
        interval = interval or (h.gpu_interval_s if args.dcgm else h.metrics_interval_s)
    interval = interval or DEFAULT_INTERVAL_S
    if args.via and looks_like_file(args.via):
        return _fail(f"--via {args.via!r} {file_word(args.via)}; --via names the SSH host to read URL through", 2)
    try:
        target = _ssh_target(ssh, args, jump) if ssh else None
    except ValueError as exc:
        return _fail(str(exc), 2)
    fold = ServerMetricsFold(args.window)
    count = 1 if args.once else args.count
    pool = None
    if target is not None:
        from cockpit.sources.transport.ssh_pool import SshPool

        pool = SshPool()
    status = 0
    try:
        if pool is not None and target is not None:
            try:  # a name that does not resolve is a typo, not a host to wait for
                await first_connect(pool, target)
            except Exception as exc:
                if resolve_failed(exc):
                    return _fail(f"{target.label}: {getattr(exc, 'reason', exc)}")
                raise
        feed = MetricsFeed(url, host=host or (target.label if target is not None else None), pool=pool,
                           target=target, interval_s=interval, timeout_s=args.timeout)
        n = 0
        async for event in feed.stream():
            n += 1
            if isinstance(event, MetricsScrapeFailed):
                fold.failed(event.reason)
                status = 1
                if args.json:
                    print(json.dumps({"url": url, "state": "failing", "error": event.reason}), flush=True)
                else:
                    print(sanitize(f"{url}: {event.reason}"), file=sys.stderr, flush=True)
            else:
                status = 0
                snap = fold.add(sglang_scrape(event.exposition), time.monotonic())
                out = {"url": url, "at": event.taken_at, **report(event.exposition, feed.host, snap)}
                print(json.dumps(out, indent=None if count != 1 else 2) if args.json else render(out) + "\n",
                      flush=True)
            if count and n >= count:
                break
    finally:
        if pool is not None:
            await pool.close()
    return status
