"""What a sweep would run, point by point: the bench client's argv, its output file, and the
key that names the point. Pure: no I/O, so the CLI can print it before asking to run it.

The argv is a list (one item per argument, `Sweep.extra_args` included), turned into a
command line for the host's shell only by `shlex.join`, never spliced into a string.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import uuid
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from cockpit.model.bench.sweep_dataset import sweep_dataset_argv
from cockpit.model.launch.confirm import host_link
from cockpit.model.session import Host, LaunchProfile, Sweep

__all__ = [
    "BENCH_MODULE", "BENCH_MODULES", "DEFAULT_PORT", "bench_module_probe", "bench_python", "command_python",
    "DEFAULT_RUN_DIR", "PlannedPoint", "SweepPlan", "bench_argv", "new_run_id",
    "plan_sweep", "point_key", "profile_host", "profile_port", "sweep_fingerprint",
]

BENCH_MODULE = "sglang.bench_serving"
"""The client's module on hosts whose SGLang predates `sglang.benchmark.serving` (a
deprecated shim since mid-2026)."""
BENCH_MODULES = ("sglang.benchmark.serving", BENCH_MODULE)
"""The bench client's modules, the current one first (`bench_module_probe` picks)."""
_PYTHON_WORD = re.compile(r"^python(\d+(\.\d+)?)?$")
DEFAULT_PORT = 30000
"""`sglang.launch_server`'s port when the command names none."""
DEFAULT_RUN_DIR = "~/.cockpit/runs"


def profile_port(command: str) -> int:
    """The `--port N` (or `--port=N`) of a launch command; 30000 when absent or unreadable."""
    try:
        words = shlex.split(command)
    except ValueError:
        return DEFAULT_PORT
    for i, word in enumerate(words):
        value = None
        if word == "--port" and i + 1 < len(words):
            value = words[i + 1]
        elif word.startswith("--port="):
            value = word.partition("=")[2]
        if value is not None and value.isdigit() and 0 < int(value) < 65536:
            return int(value)
    return DEFAULT_PORT


def profile_host(command: str) -> str:
    """Where the bench client reaches the server on its host: the command's `--host`, or
    loopback when it listens on every address (or names none)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return "127.0.0.1"
    for i, word in enumerate(words):
        value = words[i + 1] if word == "--host" and i + 1 < len(words) else (
            word.partition("=")[2] if word.startswith("--host=") else None)
        if value and value not in ("0.0.0.0", "::", "[::]"):
            return value
    return "127.0.0.1"


def command_python(command: str) -> str | None:
    """The interpreter a launch command runs SGLang with, when it names one:
    `/opt/venv/bin/python -m sglang.launch_server ...` -> `/opt/venv/bin/python` (`VAR=x`
    words before it skipped). None for anything else (a wrapper, a script, a container)."""
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # `CUDA_VISIBLE_DEVICES=0 python -m ...`
    if not words or not _PYTHON_WORD.match(os.path.basename(words[0])):
        return None
    for i in range(1, len(words) - 1):
        if words[i] == "-m":
            return words[0] if words[i + 1].startswith("sglang.") else None
        if not words[i].startswith("-"):  # a script: not SGLang's module
            return None
    return None


def bench_python(profile: LaunchProfile) -> str:
    """The sweep's interpreter: the one the profile's command names by path (the server's
    SGLang is there), else the profile's `python`, else the command's bare `python3.x`,
    else `python3`."""
    named = command_python(profile.command)
    if named and "/" in named:
        return named
    return profile.python or named or "python3"


def bench_module_probe(python: str) -> list[str]:
    """argv that prints the first of BENCH_MODULES `python` can import (nothing: neither), then
    `version V` of its package when installed as a distribution; `find_spec` loads only the
    parent packages, never the client itself."""
    code = ("import importlib.util as u\n"
            f"for m in {BENCH_MODULES!r}:\n"
            "    try:\n        found = u.find_spec(m)\n    except Exception:\n        found = None\n"
            "    if found:\n        print(m)\n"
            # the version of the package the client comes from (`sglang`), when it is installed as one
            "        try:\n            import importlib.metadata as md\n"
            "            print('version', md.version(m.split('.')[0]))\n"
            "        except Exception:\n            pass\n"
            "        break\n")
    return [python, "-c", code]


def bench_argv(sweep: Sweep, concurrency: int, *, python: str, port: int, output_file: str,
               server: str = "127.0.0.1", module: str = BENCH_MODULE) -> list[str]:
    """`python -u -m MODULE ...` for one point, as argv. `-u`: the client's stdout reaches the
    runner as it prints, not when it exits (its main-run line, sweep_runner)."""
    argv = [python, "-u", "-m", module, "--backend", "sglang", "--host", server, "--port", str(port),
            *sweep_dataset_argv(sweep)]
    argv += ["--max-concurrency", str(concurrency), "--num-prompts", str(sweep.prompts_at(concurrency)),
             "--output-file", output_file]
    return argv + list(sweep.extra_args)


def new_run_id(when: datetime | None = None) -> str:
    """A short id for one run of a sweep, sortable by time: `20250301T101500-1a2b`."""
    stamp = (when or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S")
    return f"{stamp}-{uuid.uuid4().hex[:4]}"


@dataclass(frozen=True, slots=True)
class PlannedPoint:
    index: int
    """1-based position in the sweep."""
    concurrency: int
    prompts: int
    key: str
    """`sweep:run:c<C>` (a repeat after the first: `sweep:run:c<C>:r<K>`): names the point
    across retries; recorded at most once."""
    repeat: int = 1
    """Which run of this concurrency (1..the sweep's `repeats`)."""

    def output_file(self, folder: str, attempt: int) -> str:
        """The JSONL file of one attempt (a retry writes a new one: no half-run record mixes in)."""
        return f"{folder}/{self.key.replace(':', '-')}-a{attempt}.jsonl"


@dataclass(frozen=True, slots=True)
class SweepPlan:
    sweep: Sweep
    profile: LaunchProfile
    host: Host | None
    port: int
    python: str
    run_id: str
    folder: str
    """Where the output files go on the host (`run_dir/sweeps`; `~/` as home)."""
    points: tuple[PlannedPoint, ...]
    module: str = BENCH_MODULE
    """The bench client's module (`with_module` sets the one the host has)."""
    client_version: str | None = None
    """The version of the package the bench client comes from (`sglang 0.5.23`), as the host reports it."""
    server_command: str | None = None
    """The command the running server was started with (its .info file), when cockpit started it:
    recorded on each point instead of the profile's command as it is now."""

    def argv(self, point: PlannedPoint, attempt: int = 1) -> list[str]:
        return bench_argv(self.sweep, point.concurrency, python=self.python, port=self.port,
                          output_file=point.output_file(self.folder, attempt),
                          server=profile_host(self.profile.command), module=self.module)

    def with_module(self, module: str, version: str | None = None) -> SweepPlan:
        return replace(self, module=module, client_version=version)

    def with_server_command(self, command: str | None) -> SweepPlan:
        return replace(self, server_command=command)

    def command_lines(self) -> list[str]:
        """Each point's command as the host's shell gets it (what a person confirms)."""
        return [shlex.join(self.argv(point)) for point in self.points]

    @property
    def where(self) -> str:
        return self.host.name if self.host is not None else "this machine"


def _run_folder(host: Host | None) -> str:
    base = (host.run_dir if host is not None and host.run_dir else DEFAULT_RUN_DIR).rstrip("/") or "/"
    if base == "~" or base.startswith("~/"):
        # quoted argv gets no tilde expansion: over SSH a command starts in the home folder,
        # so a relative path means the same; here the home folder is known
        if host is not None and host.ssh:
            base = base[2:] or "."
        else:
            base = os.path.expanduser(base)
    return f"{base}/sweeps"


def plan_sweep(sweep: Sweep, profile: LaunchProfile, host: Host | None, *, port: int | None = None,
               run_id: str | None = None) -> SweepPlan:
    run_id = run_id or new_run_id()
    # Repeats go round the whole sweep again (c1 c2 c4, c1 c2 c4, ...), not c1 c1 c2 c2: a
    # drift over the run (a warming GPU) spreads over every point instead of biasing one.
    pairs = [(c, r) for r in range(1, sweep.runs_per_point + 1) for c in sweep.concurrencies]
    points = tuple(PlannedPoint(i, c, sweep.prompts_at(c), point_key(sweep.id, run_id, c, r), r)
                   for i, (c, r) in enumerate(pairs, start=1))
    return SweepPlan(sweep, profile, host, port if port is not None else profile_port(profile.command),
                     bench_python(profile), run_id, _run_folder(host), points)


def point_key(sweep: str, run: str, concurrency: int, repeat: int = 1) -> str:
    """`sweep:run:cC`, and `:rK` for a repeat after the first (a first run's key as before repeats)."""
    return f"{sweep}:{run}:c{concurrency}" + (f":r{repeat}" if repeat > 1 else "")


def sweep_fingerprint(sweep: Sweep, profile: LaunchProfile, host: Host | None = None, port: int | None = None) -> str:
    """A digest of what running `sweep` on `profile` would run: the workload (concurrencies,
    extra arguments, repeats), the interpreter the client runs with (`bench_python`: the one the
    command names comes before the `python` field), the server it talks to, and the host's
    link (`model.launch.confirm.host_link`). A change asks for confirmation again."""
    # `repeats` left out at one: a sweep confirmed before repeats existed stays confirmed
    unsaid = {"confirmed", "notes", "name"} | ({"repeats"} if sweep.runs_per_point == 1 else set())
    payload = json.dumps({"sweep": sweep.model_dump(mode="json", exclude=unsaid),
                          "python": profile.python, "interpreter": bench_python(profile), "host": profile.host,
                          "server": profile_host(profile.command),
                          "port": port if port is not None else profile_port(profile.command),
                          "link": host_link(host)}, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(payload.encode()).hexdigest()[:16]
