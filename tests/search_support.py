"""A session for the search tests: the STAND-IN server with its response surface as the base
profile (cockpit/sandbox/surface.py), its power read as dcgm-exporter's from its /metrics, the
STAND-IN bench client as the profile's python, a short sweep and a small space."""

from __future__ import annotations

import sys
from pathlib import Path

from standin.procs import free_port, kill_groups_left, standin_command

from sweep_support import make_bench_python

from cockpit.control.search.consent import search_fingerprint
from cockpit.control.transaction import edit
from cockpit.model.enums import Comparator, GpuSource, Metric
from cockpit.model.search.search import Search
from cockpit.model.session import Goal, Host, LaunchProfile, Session, Sweep, Target
from cockpit.sources.server.confirm_key import confirmation
from cockpit.store.toml_store import save_session

SPACE = {"--cuda-graph-max-bs": [4, 16, 256], "--moe-runner-backend": ["flashinfer_trtllm", "triton"]}


def base_command(port: int, *extra: str) -> str:
    return standin_command(sys.executable, port, "--standin-surface", "--standin-load-s", "0.1",
                           "--standin-capture-s", "0.1", "--standin-tok-s", "400", "--decode-log-interval", "4",
                           "--mem-fraction-static", "0.88", *extra)


def search_session(folder: Path, *, hosts: tuple[str, ...] = ("box",), space: dict | None = None,
                   trials: int = 3, constraints: list[str] | None = None, targets: list[Target] | None = None,
                   extra: tuple[str, ...] = (), input_len: int = 32, output_len: int = 12,
                   concurrencies: tuple[int, ...] = (2, 8), prune_below: float = 0.5,
                   with_search: bool = True) -> tuple[Path, dict[str, int]]:
    """The session file and the port of each host's trial server."""
    runs = folder / "runs"
    python = make_bench_python(folder / "bench")
    ports = {name: free_port() for name in hosts}
    first = hosts[0]
    host_rows = [Host(name=name, run_dir=str(runs), gpu_source=GpuSource.DCGM, gpu_interval_s=0.1,
                      dcgm_url=f"http://127.0.0.1:{ports[name]}/metrics") for name in hosts]
    session = Session(
        goal=Goal(targets=targets or []),
        hosts=host_rows,
        sweeps=[Sweep(id="s1", name="short", input_len=input_len, output_len=output_len, prompts_per_concurrency=2,
                      concurrencies=list(concurrencies))],
        launch=[LaunchProfile(id="l1", name="base", host=first, python=python,
                              command=base_command(ports[first], *extra))],
        searches=[Search(id="q1", name="graph bs x backend", profile="l1", sweep="s1", objective="output_tok_s",
                         at_concurrency=8, trials=trials, space=space or SPACE, constraints=constraints or [],
                         hosts=list(hosts), ports=ports if len(hosts) > 1 else {}, prune_below=prune_below)]
        if with_search else [],
    )
    path = folder / "camp.toml"
    save_session(session, path)
    return path, ports


def cleanup(folder: Path) -> None:
    kill_groups_left(folder / "runs")


__all__ = ["Comparator", "Metric", "Target", "search_session", "cleanup", "SPACE"]


def seal_search(path: Path) -> None:
    """As `cockpit tune --yes` leaves it: the search sealed for its hosts (the person's yes)."""
    def change(e):  # noqa: ANN001, ANN202
        search = e.session.searches[0]
        sealed = confirmation("search", search_fingerprint(e.session, search, list(search.hosts)))
        e.apply("search q1 confirmed", lambda s: s.searches.__setitem__(0, s.searches[0].model_copy(
            update={"confirmed": sealed})), kind="search.confirmed")
    edit(path, change, "person")
