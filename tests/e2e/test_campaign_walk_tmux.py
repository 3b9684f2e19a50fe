"""The whole campaign walk in tmux, as a new user does it: `cockpit new`, open it, type the
last action's next step and fallback, start the profile (confirm), run the sweep (confirm),
let a point record, quit mid-sweep (asked: y), reopen (the app says the sweep was cut short),
ctrl+e resumes it, let it finish, the server crashes, quit. Then the FILE and its .bak keep
every word the person typed, and every recorded figure is the one the run produced: the
client's own JSONL line for that point, and the power the GPU source served over that
point's main run; no point recorded twice, the resumed run ran only the missing points.

STAND-INS (labelled): the server is cockpit/sandbox/sglang_server.py (SIGUSR1 crashes it),
the bench client cockpit/sandbox/bench_serving.py (through the real `-m sglang.bench_serving`
argv, tests/sweep_support.py), and the GPU source a STAND-IN dcgm-exporter served here
whose draw follows the server (busy while its log shows running requests), keeping every
sample it served.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from standin.procs import free_port, kill_groups_left, server_pid, standin_command

from sweep_support import make_bench_python
from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.bench.energy_audit import PowerSample, integrate
from cockpit.model.enums import ProfileStatus
from cockpit.model.session import Host, LaunchProfile, Sweep
from cockpit.parse.bench.result_jsonl import RECORD_FIELDS, read_records
from cockpit.parse.log.events import DecodeBatch, PrefillBatch
from cockpit.parse.log.sglang_log import parse_line
from cockpit.store.toml_store import load_session, save_session

DID, NEXT, FALLBACK = "tuned chunked prefill to 4096", "sweep c=1..4 on l1 again", "back to chunked prefill 8192"
BUSY_W, IDLE_W, LIMIT_W = 400.0, 70.0, 700.0  # per GPU, two GPUs
INTERVAL_S, IDLE_S = 0.1, 1.0  # the GPU source's interval; the client's start-up (imports) idle
CAPTURES: list[tuple[str, str]] = []


class StandinDcgm:
    """STAND-IN dcgm-exporter (not NVIDIA's): two GPUs drawing BUSY_W each while the stand-in
    server's log shows running requests, IDLE_W otherwise (as real GPUs idle while the client
    imports); keeps (wall clock, summed draw) of every page it served."""

    def __init__(self, log: Path) -> None:
        self.log, self.served, self.busy_until = log, list[Any](), 0.0
        self.stopped = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                watts = BUSY_W if time.monotonic() < owner.busy_until else IDLE_W
                owner.served.append((time.time(), 2 * watts))
                body = owner._page(watts).encode()
                self.send_response(200)
                self.send_header("Content-Type", "text/plain; version=0.0.4")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/metrics"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        threading.Thread(target=self._follow, daemon=True).start()

    def _follow(self) -> None:
        """Busy while the server's log shows requests running (a batch line in the last 0.1 s)."""
        while not self.log.exists() and not self.stopped.is_set():
            time.sleep(0.02)
        with open(self.log, errors="replace") as fh:
            while not self.stopped.is_set():
                line = fh.readline()
                if not line:
                    time.sleep(0.01)
                    continue
                event = parse_line(line.rstrip("\n"))
                if isinstance(event, (PrefillBatch, DecodeBatch)) and (event.running_req or 0) > 0:
                    self.busy_until = time.monotonic() + 0.1

    @staticmethod
    def _page(watts: float) -> str:
        lines = ["# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).", "# TYPE DCGM_FI_DEV_POWER_USAGE gauge"]
        labels = [f'gpu="{i}",UUID="GPU-standin-{i}",device="nvidia{i}",modelName="STAND-IN GPU",Hostname="box"'
                  for i in range(2)]
        lines += [f"DCGM_FI_DEV_POWER_USAGE{{{lab}}} {watts}" for lab in labels]
        lines += ["# HELP DCGM_FI_DEV_ENFORCED_POWER_LIMIT Enforced power limit (in W).",
                  "# TYPE DCGM_FI_DEV_ENFORCED_POWER_LIMIT gauge"]
        lines += [f"DCGM_FI_DEV_ENFORCED_POWER_LIMIT{{{lab}}} {LIMIT_W}" for lab in labels]
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def _see(tmux, step: str, text: str, timeout: float = 30.0) -> str:
    screen = tmux.wait_for(text, timeout=timeout)
    CAPTURES.append((step, screen))
    return screen


def test_campaign_walk_words_and_figures_survive_quit_resume_crash(tmux, tmp_path: Path):
    runs = tmp_path / "runs"
    path = tmp_path / "walk.toml"
    made = subprocess.run([*cockpit_program().split(), "new", str(path)], capture_output=True, text=True,
                          env={**os.environ, **tmux.env})
    assert made.returncode == 0 and path.exists(), made
    port = free_port()
    log = tmp_path / "server.log"
    dcgm = StandinDcgm(log)
    session = load_session(path)
    session.hosts = [Host(name="box", run_dir=str(runs), log_path=str(log),
                          gpu_source="dcgm", dcgm_url=dcgm.url, gpu_interval_s=INTERVAL_S)]
    session.launch = [LaunchProfile(id="l1", name="tp1 stand-in", host="box", status=ProfileStatus.WORKING,
                                    python=make_bench_python(tmp_path / "py"),
                                    command=standin_command(sys.executable, port, "--standin-load-s", "0.3",
                                                            "--standin-capture-s", "0.3", "--standin-tok-s", "100",
                                                            "--decode-log-interval", "4"))]
    session.sweeps = [Sweep(id="s1", name="walk", input_len=16, output_len=32, prompts=8, concurrencies=[1, 2, 4],
                            extra_args=["--standin-idle-s", str(IDLE_S)])]
    save_session(session, path)
    program = f"{cockpit_program()} {path}"
    try:
        tmux.start(program, width=200, height=50)
        _see(tmux, "open", "Σ 140 W of 1400 W")  # the GPU pane's first sample from the stand-in exporter
        tmux.keys("L")
        _see(tmux, "last action form", "what to do next")
        tmux.keys(DID, "Tab", NEXT, "Tab", FALLBACK)
        # each line in its own field (the placeholders gone) before it is saved
        tmux.wait_until(lambda s: "what to do next" not in s and "if that fails" not in s, "three filled fields",
                        timeout=5)
        tmux.keys("C-s")
        _see(tmux, "words typed", f"fallback: {FALLBACK}")
        tmux.keys("7")
        tmux.wait_for("r Start")
        tmux.keys("r")
        _see(tmux, "start asks", "Not run before")
        tmux.keys("y")
        screen = _see(tmux, "ready", "▶ ready", timeout=60)
        assert f"next: {NEXT}" in screen and f"fallback: {FALLBACK}" in screen, screen  # beside, not over
        tmux.keys("B")
        _see(tmux, "sweep asks", "Run sweep s1 (walk)")
        tmux.keys("y")
        _see(tmux, "point 1 recorded, point 2 running", "sweep point 2 of 3, c=2", timeout=60)
        tmux.keys("q")
        screen = _see(tmux, "quit asks", "the point in flight is lost")
        assert "point 2 of 3 (c=2)" in screen, screen
        tmux.keys("y")
        tmux.wait_for("COCKPIT-EXIT=0")
        tmux.kill()
        after_quit = load_session(path)
        assert [b.concurrency for b in after_quit.benchmarks] == [1]

        tmux.start(program, width=200, height=50)
        screen = _see(tmux, "reopen", "was cut short")
        tmux.wait_for(f"next: {NEXT}")
        tmux.wait_until(lambda s: "no record: c=2,4" in s.replace("\n", " ") or "c=2,4" in s, "the points left")
        tmux.wait_for("Attached: l1 is running")
        tmux.keys("C-e")  # the sweep was confirmed by the person before: it is not asked again
        screen = _see(tmux, "resumed, done", "3 of 3 points recorded", timeout=90)
        assert f"next: {NEXT}" in screen and f"fallback: {FALLBACK}" in screen, screen

        os.kill(server_pid(runs), signal.SIGUSR1)  # the stand-in dies as under load (OOM traceback, exit 1)
        screen = _see(tmux, "crash", "crashed after ready", timeout=30)
        # the header's alert comes from the log's traceback, read on its own path: under load a
        # moment after the process check's "crashed after ready"
        screen = tmux.wait_until(lambda s: "server crashed" in s, "the crash alert", timeout=30)
        assert f"next: {NEXT}" in screen and f"fallback: {FALLBACK}" in screen, screen
        tmux.keys("7")
        _see(tmux, "Launch tab after the crash", "crashed  ")
        tmux.keys("C-s")
        tmux.keys("q")
        tmux.wait_for("COCKPIT-EXIT=0")
    finally:
        kill_groups_left(runs)
        dcgm.close()
        with open(tmp_path / "walk-captures.txt", "w") as fh:
            for step, screen in CAPTURES:
                fh.write(f"===== {step}\n{screen}\n")

    # the person's words, in the file and in its .bak
    saved = load_session(path)
    last = saved.last_action
    assert (last.text, last.next_step, last.fallback) == (DID, NEXT, FALLBACK)
    assert "crashed after ready (exit 1)" in last.activity.text
    bak = load_session(path.with_name(path.name + ".bak")).last_action
    assert (bak.text, bak.next_step, bak.fallback) == (DID, NEXT, FALLBACK)

    # one record a point, one run; the resumed run ran only the points with no record
    benches = saved.benchmarks
    assert sorted(b.concurrency for b in benches) == [1, 2, 4]
    assert len({b.sweep_run for b in benches}) == 1
    assert benches[0] == after_quit.benchmarks[0]  # c=1, recorded before the quit, untouched
    outputs = sorted(p.name for p in (runs / "sweeps").glob("*.jsonl"))
    run = benches[0].sweep_run
    assert outputs == [f"s1-{run}-c{c}-a1.jsonl" for c in (1, 2, 4)]  # c=1 not run again

    # every figure is the client's own, and the power the GPU source served over the main run
    for bench in benches:
        (record,) = read_records((runs / "sweeps" / f"s1-{run}-c{bench.concurrency}-a1.jsonl").read_text())
        for key, name in RECORD_FIELDS.items():
            assert getattr(bench, name) == round(record[key], 3), (bench.concurrency, name)
        assert bench.max_concurrent_requests == record["max_concurrent_requests"]
        start, end = record["standin_main_start_unix"], record["standin_main_end_unix"]
        inside = [w for t, w in dcgm.served if start <= t <= end]
        around = [w for t, w in dcgm.served if start - 2 * INTERVAL_S <= t <= end + 2 * INTERVAL_S]
        startup = [w for t, w in dcgm.served if start - IDLE_S <= t <= end]
        assert len(inside) >= 3 and min(startup) == 2 * IDLE_W  # the client's start-up idled the GPUs
        # the GPU pane scrapes the same exporter, so the sweep saw about half of these samples; its mean is
        # their ∫ W dt over the seconds they span (time-weighted: model/bench/energy_audit.py), so it lies
        # between the served values and near the integral of every served sample over the same window,
        # off by at most a busy/idle edge the sweep saw up to two ticks late
        assert min(around) <= bench.power_mean_w <= max(around), (bench.concurrency, bench.power_mean_w, around)
        joules, spanned, _ = integrate([PowerSample(t, w) for t, w in dcgm.served], start, end)
        assert joules is not None and spanned > 0
        edge = 2 * (BUSY_W - IDLE_W) * 2 * INTERVAL_S / spanned
        assert abs(bench.power_mean_w - joules / spanned) <= edge + 0.1, (bench.concurrency, bench.power_mean_w,
                                                                          joules / spanned, edge)
        assert bench.power_mean_w == pytest.approx(sum(inside) / len(inside), rel=0.1), bench.concurrency
        assert bench.power_mean_w > sum(startup) / len(startup) + 50  # the start-up is not averaged in
        assert bench.power_peak_w == max(around)
        assert bench.power_share == pytest.approx(bench.power_mean_w / (2 * LIMIT_W), abs=1e-4)
        assert bench.tok_per_joule == pytest.approx(record["total_throughput"] / bench.power_mean_w, rel=1e-3)
        assert bench.output_tok_per_joule == pytest.approx(record["output_throughput"] / bench.power_mean_w,
                                                           rel=1e-3)
        assert "power" not in (bench.notes or "")
