"""Headless GPU commands: `cockpit gpus` and `cockpit topo`, local (NVML) or over SSH."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from cockpit.cli.seconds_arg import INTERVAL, REMOTE_TIMEOUT
from cockpit.cli.watch.host_arg import file_word, first_connect, looks_like_file, resolve_failed
from cockpit.cli.watch.target_args import add_ssh_options
from cockpit.ground.sanitize import sanitize
from cockpit.parse.gpu.events import GpuSamplesTaken, GpuSourceUnavailable, GpuStreamInterrupted
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix, TopologyParseError, parse_topology
from cockpit.parse.gpu.sample import GpuSample

if TYPE_CHECKING:
    from cockpit.sources.transport.ssh_target import SshTarget


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "topo",
        help="GPU topology matrix (NVLink/PCIe distance, CPU and NUMA affinity)",
        description="Show the GPU topology of this machine (NVML), of HOST (nvidia-smi topo -m over "
        "SSH) or of FILE (saved `nvidia-smi topo -m` output; - for stdin).",
    )
    p.add_argument("target", nargs="?", metavar="HOST|FILE", help="[user@]host[:port], an ssh_config alias, or a file")
    p.add_argument("--json", action="store_true", help="print JSON (gpus, nics, matrix, cpu_affinity, numa_affinity)")
    p.add_argument("--detail", action="store_true", help="with --json: add NIC links, GPU NUMA ids, legend, warnings")
    add_ssh_options(p)
    _timeout_option(p, "HOST: seconds to wait for the connection and for nvidia-smi's answer (default 30); "
                       "then it is stopped on the host")
    p.set_defaults(func=cmd_topo)

    g = subparsers.add_parser(
        "gpus",
        help="per-GPU power against the limit, utilisation, memory, clocks, PCIe link",
        description="Sample the GPUs of this machine (NVML) or of HOST (one long-lived nvidia-smi over SSH).",
    )
    g.add_argument("host", nargs="?", metavar="HOST", help="[user@]host[:port] or an ssh_config alias")
    g.add_argument("--once", action="store_true", help="one sample per GPU, then exit")
    g.add_argument("--json", action="store_true", help="JSON: one object per tick (a JSON line per tick when streaming)")
    g.add_argument("--interval", type=INTERVAL, default=1.0, metavar="S", help="seconds between samples (default 1)")
    g.add_argument("--count", type=int, default=0, metavar="N", help="stop after N ticks (default: until Ctrl-C)")
    add_ssh_options(g)
    _timeout_option(g, "HOST: seconds to wait for the connection and, with --once, for nvidia-smi's answer "
                       "(default 30); streaming: restart nvidia-smi after this long without a line "
                       "(default 10 s or 5 intervals)")
    g.set_defaults(func=cmd_gpus)


def _fail(message: str) -> int:
    print(sanitize(f"cockpit: {message}", multiline=True), file=sys.stderr)  # may quote a host
    return 1


_NO_LOCAL_HINT = " Give a HOST to read a remote machine's GPUs over SSH."


def _target(spec: str, args: argparse.Namespace) -> SshTarget:
    from cockpit.sources.transport.ssh_pool import SshTarget, with_config

    target = SshTarget.parse(spec)
    config = tuple(args.ssh_config) if args.ssh_config else None
    return with_config(target, config, args.known_hosts)


def _bad_target(spec: str, args: argparse.Namespace) -> int | None:
    """A HOST that is no SSH target is refused (exit 2) before anything starts."""
    try:
        _target(spec, args)
    except ValueError as exc:
        _fail(str(exc))
        return 2
    return None


def _file_not_host(command: str, spec: str) -> int:
    """The one line for a file given where `gpus` wants a host (exit 2, nothing started)."""
    print(sanitize(f"cockpit {command}: {spec!r} {file_word(spec)}; {command} samples live GPUs (this machine, "
                   f"or HOST over SSH); for saved nvidia-smi output: cockpit diagnose SESSION --gpus {spec}"),
          file=sys.stderr)
    return 2


DEFAULT_TIMEOUT_S = 30.0


def _timeout_option(p: argparse.ArgumentParser, text: str) -> None:
    p.add_argument("--timeout", type=REMOTE_TIMEOUT, metavar="S", help=text)


def _remote_timeout(args: argparse.Namespace) -> float:
    return args.timeout if args.timeout is not None else DEFAULT_TIMEOUT_S


# --- topo ------------------------------------------------------------------------------------


def cmd_topo(args: argparse.Namespace) -> int:
    spec = args.target
    if args.timeout is not None and args.timeout <= 0:
        return _fail("--timeout must be positive")
    try:
        if spec == "-" or spec and Path(spec).exists():
            from cockpit.sources.input_file import InputTooLarge, read_input

            try:
                topo = parse_topology(read_input(spec).decode("utf-8", "replace"))
            except InputTooLarge as exc:
                return _fail(str(exc))
        elif spec and looks_like_file(spec):
            return _fail(f"{spec}: no such file")
        elif spec:
            if (bad := _bad_target(spec, args)) is not None:
                return bad
            topo = asyncio.run(_remote_topology(spec, args))
        else:
            topo = asyncio.run(_local_topology())
    except TopologyParseError as exc:
        return _fail(f"{spec}: {exc}")
    except GpuSourceUnavailable as exc:
        return _fail(exc.message + ("" if spec else _NO_LOCAL_HINT))
    except OSError as exc:  # FILE: unreadable, a folder
        return _fail(f"{exc.filename or spec}: {exc.strerror or exc}")
    except Exception as exc:  # SshError and friends carry a readable message
        if (unreachable := _one_shot_unreachable(exc)) is not None:
            return _fail(unreachable)
        if type(exc).__module__.startswith("cockpit."):
            return _fail(str(exc))
        raise
    if args.json:
        print(json.dumps(topo.to_json(detail=args.detail), indent=1))
    else:
        print(sanitize(render_topology(topo), multiline=True))  # names, legend: host output
    return 0


async def _local_topology() -> TopologyMatrix:
    from cockpit.sources.gpu.nvml_sampler import NvmlSampler

    async with NvmlSampler() as sampler:
        return await sampler.topology()


async def _remote_topology(spec: str, args: argparse.Namespace) -> TopologyMatrix:
    from cockpit.sources.gpu.nvsmi_stream import fetch_topology
    from cockpit.sources.transport.ssh_pool import SshPool

    timeout = _remote_timeout(args)
    async with SshPool(connect_timeout_s=timeout) as pool:
        return await fetch_topology(pool, _target(spec, args), timeout_s=timeout)


def _one_shot_unreachable(exc: Exception) -> str | None:
    """A connect that failed once, said without the pool's "retry in" (a one-shot does not
    retry); None for any other error."""
    from cockpit.sources.transport.ssh_pool import HostUnavailable

    return f"{exc.target.label}: {exc.reason}" if isinstance(exc, HostUnavailable) else None


def render_topology(t: TopologyMatrix) -> str:
    """The matrix as an aligned table (GPUs only), affinity columns, the legend in use."""
    cols = list(t.gpus)
    extra = [(name, col) for name, col in (("CPU Affinity", t.cpu_affinity), ("NUMA Affinity", t.numa_affinity),
                                           ("GPU NUMA ID", t.gpu_numa_id)) if col is not None]
    rows = [["", *cols, *(name for name, _ in extra)]]
    for g in t.gpus:
        cells = [t.link(g, o) or "?" for o in cols]
        rows.append([g, *cells, *((col.get(g) or "") for _, col in extra)])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if t.nics:
        names = ", ".join(f"{n}={t.nic_names[n]}" if n in t.nic_names else n for n in t.nics)
        lines.append(f"\nNICs: {names}")
    present = t.classes_present()
    if present:
        lines.append("")
        lines.extend(f"  {c:<4} = {t.legend.get(c, '')}" for c in present)
    lines.extend(f"warning: {w}" for w in t.warnings)
    return "\n".join(lines)


# --- gpus ------------------------------------------------------------------------------------


def cmd_gpus(args: argparse.Namespace) -> int:
    if args.interval <= 0:
        return _fail("--interval must be positive")
    if args.timeout is not None and args.timeout <= 0:
        return _fail("--timeout must be positive")
    if args.host and looks_like_file(args.host):
        return _file_not_host("gpus", args.host)
    try:
        if args.host:
            if (bad := _bad_target(args.host, args)) is not None:
                return bad
            return asyncio.run(_remote_gpus(args))
        return asyncio.run(_local_gpus(args))
    except GpuSourceUnavailable as exc:
        return _fail(exc.message + ("" if args.host else _NO_LOCAL_HINT))
    except Exception as exc:
        if resolve_failed(exc) and Path(args.host).is_file():  # `gpus nvsmi`: a file, no such host
            return _file_not_host("gpus", args.host)
        if (unreachable := _one_shot_unreachable(exc)) is not None:
            return _fail(unreachable)
        if type(exc).__module__.startswith("cockpit."):
            return _fail(str(exc))
        raise


async def _local_gpus(args: argparse.Namespace) -> int:
    from cockpit.sources.gpu.nvml_sampler import NvmlSampler

    async with NvmlSampler(interval_s=args.interval) as sampler:
        if args.once:
            samples = await sampler.sample()
            _print_tick(GpuSamplesTaken(None, samples, samples[0].timestamp or 0.0), args, pretty=True)
            return 0
        n = 0
        async for event in sampler.samples():
            _print_tick(event, args)
            n += 1
            if args.count and n >= args.count:
                return 0
    return 0


async def _remote_gpus(args: argparse.Namespace) -> int:
    from cockpit.sources.gpu.nvsmi_stream import NvsmiStream, fetch_samples
    from cockpit.sources.transport.ssh_pool import HostUnavailable, SshPool

    target = _target(args.host, args)
    timeout = _remote_timeout(args)
    async with SshPool(connect_timeout_s=timeout) as pool:
        if args.once:
            samples = await fetch_samples(pool, target, timeout_s=timeout)
            first_at = (samples[0].timestamp or 0.0) if samples else 0.0
            _print_tick(GpuSamplesTaken(target.label, samples, first_at), args, pretty=True)
            return 0
        await first_connect(pool, target)  # a name that does not resolve is a typo, not a host to wait for
        n = 0
        stream = NvsmiStream(pool, target, interval_ms=int(args.interval * 1000), stall_timeout_s=args.timeout)
        try:
            async for event in stream:
                if isinstance(event, GpuSamplesTaken):
                    _print_tick(event, args)
                    n += 1
                    if args.count and n >= args.count:
                        return 0
                elif isinstance(event, GpuStreamInterrupted):
                    print(sanitize(f"cockpit: {event.host}: {event.reason}; retrying in {event.retry_in_s:.0f} s"),
                          file=sys.stderr)
                elif isinstance(event, GpuSourceUnavailable):
                    return _fail(event.message)
        except HostUnavailable as exc:
            return _fail(str(exc))
    return 0


def _print_tick(event: GpuSamplesTaken, args: argparse.Namespace, *, pretty: bool = False) -> None:
    if args.json:
        obj = {"host": event.host, "taken_at": event.taken_at, "gpus": [s.to_json() for s in event.samples]}
        print(json.dumps(obj, indent=1 if pretty else None), flush=True)
    else:
        print(sanitize(render_samples(event.samples, host=event.host), multiline=True), flush=True)


def _fmt(v: float | int | None, spec: str = ".0f") -> str:
    return "-" if v is None else format(v, spec)


def render_samples(samples: Sequence[GpuSample], *, host: str | None = None) -> str:
    """One line per GPU plus the total draw against the total limit."""
    rows = [["GPU", "name", "power", "util", "memory MiB", "temp", "SM MHz", "PCIe", "throttle"]]
    for s in samples:
        rows.append([
            str(s.index),
            (s.name or "?")[:24],
            f"{_fmt(s.power_w)}/{_fmt(s.power_limit_w)} W",
            f"{_fmt(s.util_gpu_pct)}%",
            f"{_fmt(s.mem_used_mib)}/{_fmt(s.mem_total_mib)}",
            f"{_fmt(s.temp_c)}C",
            "-" if s.sm_clock_mhz is None and s.sm_clock_max_mhz is None
            else f"{_fmt(s.sm_clock_mhz)}/{_fmt(s.sm_clock_max_mhz)}",
            "-" if s.pcie_gen is None and s.pcie_width is None else f"gen{_fmt(s.pcie_gen)}x{_fmt(s.pcie_width)}",
            ",".join(s.throttle_reasons) or "-",
        ])
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    draw = [float(s.power_w) for s in samples if s.power_w is not None]
    limit = [float(s.power_limit_w) for s in samples if s.power_limit_w is not None]
    total = f"{sum(draw):.0f} W of {sum(limit):.0f} W" if draw and limit else "total power unknown"
    lines.append(f"{host or 'local'}: {total}")
    return "\n".join(lines)


