"""Cockpit's own overhead per sweep point (goal: under 1 s beyond the bench tool's run).

    .venv/bin/python benchmarks/bench_sweep_overhead.py [--points 8] [--no-ssh] [--no-server-metrics]

Runs a sweep with the STAND-IN bench client (cockpit/sandbox/bench_serving.py, as `python -m
sglang.bench_serving`) against the STAND-IN SGLang server, on this machine and over the
loopback sshd (needs root), recording into a session that already holds 300 benchmarks
(every record is a merge-and-save under the lock). Per point:

* client_s: the client process, start to exit (its own startup included);
* tool_s: the client's own measured benchmark duration (its `duration`);
* overhead_s = point wall time - client_s: what cockpit adds (spawn or channel, reading the
  server's /metrics at the point's start and end as `cockpit sweep` does (the third read, when
  the client's main run starts, overlaps the client and adds nothing here), reading the JSONL
  back, parsing, recording and saving the session);
* gap_s: from one point's record saved to the next point's client started.

Prints medians per mode, writes benchmarks/out/sweep_overhead.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from sweep_support import StandinServer, make_bench_python  # noqa: E402

from cockpit.control.session_controller import SessionController  # noqa: E402
from cockpit.control.sweep_runner import SweepRunner  # noqa: E402
from cockpit.control.sweep_session import server_metrics_probe  # noqa: E402
from cockpit.live.experiment.sweep_events import PointRecorded, PointStarted  # noqa: E402
from cockpit.live.experiment.sweep_plan import plan_sweep  # noqa: E402
from cockpit.live.experiment.sweep_sink import ControllerSink  # noqa: E402
from cockpit.model.session import Benchmark, Host, LaunchProfile, Session, Sweep  # noqa: E402
from cockpit.sources.server.bench_hosts import LocalBenchHost, SshBenchHost  # noqa: E402
from cockpit.store.toml_store import load_session, save_session  # noqa: E402

OUT = Path(__file__).resolve().parent / "out"


def _session(path: Path, host: Host, python: str, port: int, points: int) -> None:
    concurrencies = [2 ** i for i in range(points)]
    save_session(Session(
        hosts=[host],
        launch=[LaunchProfile(id="l1", name="base", host=host.name, python=python,
                              command=f"python -m sglang.launch_server --port {port}")],
        sweeps=[Sweep(id="s1", name="ramp", input_len=64, output_len=32, concurrencies=concurrencies,
                      prompts_per_concurrency=2)],
        benchmarks=[Benchmark(id=f"b{i}", label=f"old {i}", concurrency=1 + i % 64, total_tok_s=1000.0 + i)
                    for i in range(1, 301)]), path)


async def _sweep(path: Path, bench_host: object, *, metrics: bool, pool: object = None,
                 target: object = None) -> list[dict[str, float]]:
    session = load_session(path)
    plan = plan_sweep(session.sweeps[0], session.launch[0], session.hosts[0])
    events: list[tuple[float, object]] = []
    loop = asyncio.get_running_loop()
    probe = server_metrics_probe(session.launch[0], plan, pool, target, session.hosts[0]) if metrics else None
    runner = SweepRunner(plan, bench_host, ControllerSink(SessionController(session, path)),  # type: ignore[arg-type]
                         on_event=lambda e: events.append((loop.time(), e)), server_metrics=probe)
    outcome = await runner.run()
    assert outcome.status == "done", outcome
    rows = []
    recorded_at = None
    for when, event in events:
        if isinstance(event, PointStarted) and recorded_at is not None:
            rows[-1]["gap_s"] = when - recorded_at
        if isinstance(event, PointRecorded):
            assert event.client_s is not None and event.tool_s is not None
            rows.append({"concurrency": event.concurrency, "wall_s": event.wall_s, "client_s": event.client_s,
                         "tool_s": event.tool_s, "overhead_s": event.wall_s - event.client_s})
            recorded_at = when
    return rows


def _summary(rows: list[dict[str, float]]) -> dict[str, float]:
    out = {f"median_{k}": statistics.median(r[k] for r in rows) for k in ("wall_s", "client_s", "tool_s", "overhead_s")}
    out["max_overhead_s"] = max(r["overhead_s"] for r in rows)
    gaps = [r["gap_s"] for r in rows if "gap_s" in r]
    out["median_gap_s"] = statistics.median(gaps) if gaps else 0.0
    out["median_beyond_tool_s"] = statistics.median(r["wall_s"] - r["tool_s"] for r in rows)
    return out


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--points", type=int, default=8)
    parser.add_argument("--no-ssh", action="store_true", help="only this machine (the sshd mode needs root)")
    parser.add_argument("--no-server-metrics", action="store_true",
                        help="do not read the server's /metrics at each point's start and end")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-sweep-"))
    os.chmod(work, 0o755)
    server = StandinServer(tok_s=4000)
    metrics = not args.no_server_metrics
    results: dict[str, object] = {"points": args.points, "session_benchmarks": 300, "server_metrics": metrics}
    try:
        path = work / "local.toml"
        _session(path, Host(name="local", run_dir=str(work / "runs")), make_bench_python(work / "local"),
                 server.port, args.points)
        rows = await _sweep(path, LocalBenchHost(), metrics=metrics)
        results["local"] = {"summary": _summary(rows), "points": rows}
        if not args.no_ssh:
            from sshd_fixture import LoopbackSshd

            from cockpit.sources.transport.ssh_pool import SshPool

            sshd = LoopbackSshd()
            sshd.start()
            try:
                remote = sshd.make_dir("bench")
                runs = remote / "runs"
                runs.mkdir()
                os.chmod(runs, 0o777)
                path = work / "ssh.toml"
                _session(path, Host(name="gpu1", ssh="cockpit-loop", run_dir=str(runs)),
                         make_bench_python(remote, python="/usr/bin/python3"), server.port, args.points)
                async with SshPool(agent_path=None) as pool:
                    rows = await _sweep(path, SshBenchHost(pool, sshd.target(), "gpu1"), metrics=metrics, pool=pool,
                                        target=sshd.target())
                results["ssh"] = {"summary": _summary(rows), "points": rows}
            finally:
                sshd.close()
    finally:
        server.close()
    print(f"{'mode':<6} {'points':>6} {'client s':>9} {'tool s':>8} {'wall s':>8} {'overhead s':>11} "
          f"{'max ovh s':>10} {'gap s':>7} {'beyond tool s':>14}")
    for mode in ("local", "ssh"):
        if mode not in results:
            continue
        s = results[mode]["summary"]  # type: ignore[index]
        print(f"{mode:<6} {args.points:>6} {s['median_client_s']:>9.3f} {s['median_tool_s']:>8.3f} "
              f"{s['median_wall_s']:>8.3f} {s['median_overhead_s']:>11.3f} {s['max_overhead_s']:>10.3f} "
              f"{s['median_gap_s']:>7.3f} {s['median_beyond_tool_s']:>14.3f}")
    print(f"goal: overhead (wall - client) under 1 s per point; medians over points; server /metrics read at "
          f"each point's start and end: {'yes' if metrics else 'no'}")
    OUT.mkdir(exist_ok=True)
    (OUT / "sweep_overhead.json").write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
