"""Helpers for the sweep tests: a `python` that runs the STAND-IN bench client (tests/standin/
bench_serving.py) for `python -m sglang.bench_serving`, and a labelled stand-in GPU source.

The runner's argv is the real one (`PY -m sglang.bench_serving ...`): PY is a small wrapper
that puts a folder holding `sglang/bench_serving.py` (which runs the stand-in) first on
PYTHONPATH, so nothing in cockpit knows a stand-in is there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cockpit.parse.gpu_sample import GpuSample

STANDIN = Path(__file__).resolve().parent / "standin" / "bench_serving.py"


def make_bench_python(folder: Path, *, python: str = sys.executable) -> str:
    """Write the wrapper interpreter under `folder` (world-readable: the sshd test user runs it)."""
    pkg = folder / "standin-pkgs" / "sglang"
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "__init__.py").write_text('"""STAND-IN package: only bench_serving, which runs the stand-in client."""\n')
    (pkg / "bench_serving.py").write_text(
        f"import runpy\nrunpy.run_path({str(STANDIN)!r}, run_name='__main__')\n")
    wrapper = folder / "python-standin"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={folder / "standin-pkgs"} exec {python} "$@"\n')
    for path in (folder, folder / "standin-pkgs", pkg, pkg / "__init__.py", pkg / "bench_serving.py", wrapper):
        os.chmod(path, 0o755)
    return str(wrapper)


def standin_gpu_tick(watts_per_gpu: float = 300.0, gpus: int = 2, limit_w: float = 700.0) -> list[GpuSample]:
    """STAND-IN GPU samples (no GPU here): `gpus` GPUs drawing `watts_per_gpu` each."""
    return [GpuSample(index=i, name="STAND-IN GPU", power_w=watts_per_gpu, power_limit_w=limit_w) for i in range(gpus)]
