"""SIMULATORS (STAND-INS), not SGLang and not NVIDIA's tools: a made-up SGLang server, bench
client and dcgm-exporter that behave as the real ones do in everything cockpit observes, so
the experiment loop (launch, sweep, search, diagnose) runs on a machine without GPUs.

Used by `cockpit sandbox` (cli/sandbox_cmd.py: a session on this machine whose profiles
start the simulated server) and by the tests. Production code never imports this package
(an import-linter contract in pyproject.toml): only the `sandbox` command does.

* sglang_server.py  -- STAND-IN for `python -m sglang.launch_server` (run as a script)
* surface.py        -- the STAND-IN server's response surface (speed, power, crashes by flag)
* bench_serving.py  -- STAND-IN for `python -m sglang.bench_serving` (run as a script)
* bench_datasets.py -- the STAND-IN bench client's datasets
* dcgm_exporter.py  -- STAND-IN dcgm-exporter (run as a script)
* bench_python.py   -- a `python` wrapper that runs the STAND-IN bench client as SGLang's module
* session.py        -- the sandbox session (`cockpit sandbox DIR`)

The scripts use only the standard library: any python3 on a host cockpit reaches runs them.
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).resolve().parent
SERVER = HERE / "sglang_server.py"
"""The STAND-IN SGLang server script."""
BENCH_CLIENT = HERE / "bench_serving.py"
"""The STAND-IN bench client script."""
DCGM_EXPORTER = HERE / "dcgm_exporter.py"
"""The STAND-IN dcgm-exporter script."""
