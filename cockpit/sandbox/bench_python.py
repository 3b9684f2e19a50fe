"""STAND-IN wiring: a `python` that runs the STAND-IN bench client (bench_serving.py beside
this file) when asked for `python -m sglang.bench_serving` or `-m sglang.benchmark.serving`.

The sweep's argv stays the real one (`PY -m sglang.benchmark.serving ...`): PY is a small
shell wrapper that puts a folder holding `sglang/benchmark/serving.py` (which runs the
stand-in) first on PYTHONPATH, so nothing in cockpit knows a simulator is there.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cockpit.sandbox import BENCH_CLIENT

MODULES = ("sglang.bench_serving", "sglang.benchmark.serving")
"""The bench client's module names: SGLang's before mid-2026, and since."""


def make_bench_python(folder: Path, *, python: str = sys.executable, modules: tuple[str, ...] = MODULES[:1],
                      script: Path = BENCH_CLIENT) -> str:
    """Write the wrapper interpreter under `folder` (world-readable: a test's sshd login user
    runs it, with `script` from a readable copy of the stand-in). `modules`: the names the
    stand-in is installed as. Returns the wrapper's path."""
    root = folder / "standin-pkgs"
    made = [folder, root]
    for module in modules:
        parts = module.split(".")
        pkg = root.joinpath(*parts[:-1])
        pkg.mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parts)):
            init = root.joinpath(*parts[:depth], "__init__.py")
            if not init.exists():
                init.write_text('"""STAND-IN package: only the bench client, which runs the stand-in."""\n')
            made += [init.parent, init]
        leaf = pkg / f"{parts[-1]}.py"
        leaf.write_text(f"import runpy\nrunpy.run_path({str(script)!r}, run_name='__main__')\n")
        made.append(leaf)
    wrapper = folder / "python-standin"
    # PYTHONUNBUFFERED unset, as on a host where nothing sets it: a piped stdout is buffered
    wrapper.write_text(f'#!/bin/sh\nunset PYTHONUNBUFFERED\nPYTHONPATH={root} exec {python} "$@"\n')
    for path in (*made, wrapper):
        os.chmod(path, 0o755)
    return str(wrapper)
