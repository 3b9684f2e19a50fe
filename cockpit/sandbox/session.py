"""The sandbox session (`cockpit sandbox DIR`): a campaign on this machine whose launch
profiles start the SIMULATED SGLang server (sglang_server.py with its response surface and
launch-to-launch noise) and whose sweeps run the SIMULATED bench client (through the
`python` wrapper of bench_python.py), so run, sweep, tune, diagnose, the Search view and
compare work without a GPU, in seconds a point.

What DIR holds:
* session.toml      -- the session: host `local`, profiles `l1` and `l2`, sweep `s1`, search `q1`
* bench/            -- the wrapper interpreter the profiles name as their `python`
* runs/             -- the launched servers' PID files, and server.log (every launch appends to
                       it, so the TUI's Server log pane follows whichever runs)
* SANDBOX           -- the marker that says DIR is a sandbox (a later `cockpit sandbox DIR` reuses it)
"""

from __future__ import annotations

import shlex
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

from cockpit.model.enums import Comparator, GpuSource, Metric
from cockpit.model.search.search import Search
from cockpit.model.session import Goal, Host, LaunchProfile, Session, Sweep, Target, Task, now
from cockpit.sandbox import SERVER
from cockpit.sandbox.bench_python import MODULES, make_bench_python
from cockpit.store.toml_store import save_session

MARKER = "SANDBOX"
SESSION = "session.toml"
HOST = "local"
MODEL = "sandbox/Qwen3-30B-A3B (SIMULATED)"
SPACE: dict[str, list[int] | list[str] | list[float]] = {
    "--cuda-graph-max-bs": [32, 64, 128, 256],
    "--moe-runner-backend": ["flashinfer_cutlass", "flashinfer_trtllm", "triton"],
    "--mem-fraction-static": [0.8, 0.88],
}
"""q1's space: 24 configurations; a graph batch of 256 with 0.88 of the memory crashes while
capturing (surface.py), so the search meets a crash region too."""


class SandboxError(Exception):
    """DIR cannot be a sandbox (one line, said as is)."""


@dataclass(frozen=True, slots=True)
class Made:
    path: Path
    """DIR/session.toml."""
    reused: bool
    """DIR was an earlier sandbox: its session (and what it recorded) is kept as it was."""
    port: int


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def server_command(port: int, *flags: str) -> str:
    """A launch command that starts the SIMULATED server, as a person types a launch_server line."""
    return shlex.join([sys.executable, str(SERVER), "--model-path", MODEL, "--port", str(port), "--tp", "1",
                       "--cuda-graph-max-bs", "64", "--moe-runner-backend", "flashinfer_cutlass",
                       "--mem-fraction-static", "0.80", "--decode-log-interval", "8",
                       # the simulator's own knobs: its response surface, 3 % launch-to-launch noise,
                       # a start of about a second and 400 tokens per second per request
                       "--standin-surface", "--standin-noise", "0.03", "--standin-load-s", "0.4",
                       "--standin-capture-s", "0.3", "--standin-tok-s", "400", *flags])


def sandbox_session(folder: Path, port: int, python: str) -> Session:
    runs = folder / "runs"
    url = f"http://127.0.0.1:{port}/metrics"
    base = server_command(port)
    return Session(
        title="sandbox: a SIMULATED SGLang server on this machine",
        created=now(),
        goal=Goal(summary="Try cockpit's loop without a GPU: run l1, sweep s1, tune q1, diagnose, compare. "
                          "Every figure here comes from a SIMULATOR (cockpit/sandbox/), not a GPU.",
                  model=MODEL, hardware="none: SIMULATED server, bench client and GPU power",
                  # the base reads about 3,400-3,800 at c=16 and the surface's best about 4,500:
                  # missed until a search (or a person) finds better flags
                  targets=[Target(id="t1", metric=Metric.OUTPUT_TOK_S, comparator=Comparator.GE, value=4000,
                                  concurrency_min=16, concurrency_max=16, label="c=16 output")]),
        # the walk of docs/sandbox.md as the board's first tasks, each with the keys that do it
        tasks=[Task(id=f"t{n}", title=title, order=n) for n, title in enumerate((
            "Start l1 and sweep s1: 7 (Launch), r, then B",
            "Compare l2 with l1: start l2, sweep it, then 4 (Benchmarks) and c",
            "Tune q1 until the c=16 target is met: Q (Search), s",
            "Read the findings: D; accept one into Discoveries or dismiss it",
            "Read the handoff a colleague would get: 0",
        ), start=1)],
        hosts=[Host(name=HOST, description="this machine, running the SIMULATED server (cockpit sandbox)",
                    run_dir=str(runs), log_path=str(runs / "server.log"), gpu_source=GpuSource.DCGM,
                    # a sweep point here runs for about 0.3 s: GPU samples come more often than that,
                    # so every point's main run holds some (its power is recorded)
                    gpu_interval_s=0.1, dcgm_url=url, metrics_url=url)],
        launch=[
            LaunchProfile(id="l1", name="base: graph bs 64, cutlass", command=base, host=HOST, python=python,
                          notes="SIMULATED server (cockpit/sandbox/sglang_server.py): its speed follows the flags."),
            LaunchProfile(id="l2", name="trtllm MoE backend", host=HOST, python=python,
                          command=base.replace("flashinfer_cutlass", "flashinfer_trtllm"),
                          notes="l1 with --moe-runner-backend flashinfer_trtllm (compare it with l1)."),
        ],
        # the client's per-request timings, and enough requests a point (more than twice its
        # concurrency) for ML.ENERGY's steady window: every point records its steady tok/J
        sweeps=[Sweep(id="s1", name="short random prompts", input_len=256, output_len=64, prompts_per_concurrency=3,
                      concurrencies=[1, 4, 16], extra_args=["--output-details"])],
        searches=[Search(id="q1", name="graph bs x MoE backend x memory", profile="l1", sweep="s1",
                         objective="output_tok_s", at_concurrency=16, trials=8, repeats=2,
                         space=dict(SPACE))],  # type: ignore[arg-type]  # pydantic validates the lists
    )


def is_sandbox(folder: Path) -> bool:
    return (folder / MARKER).is_file()


def make_sandbox(folder: Path) -> Made:
    """Make (or reuse) the sandbox in `folder`. SandboxError: a non-empty folder that is not one,
    or a path that is not a folder."""
    if folder.exists() and not folder.is_dir():
        raise SandboxError(f"{folder}: exists and is not a folder")
    reused = folder.is_dir() and is_sandbox(folder)
    if folder.is_dir() and not reused and any(folder.iterdir()):
        raise SandboxError(f"{folder}: a folder that is not empty and not an earlier sandbox; "
                           "name a new or empty folder (cockpit sandbox DIR)")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "runs").mkdir(exist_ok=True)
    # written again each time: the interpreter it runs may have moved (a new venv)
    python = make_bench_python(folder.resolve() / "bench", modules=MODULES)
    path = folder / SESSION
    if reused and path.exists():
        return Made(path, True, _port_of(path))
    port = _free_port()
    save_session(sandbox_session(folder.resolve(), port, python), path)
    (folder / MARKER).write_text("made by `cockpit sandbox`: a session on SIMULATORS (cockpit/sandbox/), no GPU\n")
    return Made(path, False, port)


def _port_of(path: Path) -> int:
    from cockpit.store.toml_store import load_session

    session = load_session(path)
    url = next((h.dcgm_url for h in session.hosts if h.name == HOST and h.dcgm_url), "")
    return int(url.rsplit(":", 1)[-1].split("/", 1)[0]) if url else 0
