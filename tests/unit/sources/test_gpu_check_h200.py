"""The start's "GPUs already hold memory" check on text captured from a real H200
(tests/data/gpu/README.md): the warning names the process and its memory; the empty
answer nvidia-smi gave with nothing running means no warning."""

from __future__ import annotations

from pathlib import Path

from cockpit.sources.server.results import parse_gpu

DATA = Path(__file__).resolve().parents[2] / "data" / "gpu"


def _check(output: str):
    return parse_gpu(["gpucheck 0", *(f"gpu {line}" for line in output.splitlines() if line)])


def test_a_process_holding_h200_memory_is_warned_about_by_pid_name_and_size():
    check = _check((DATA / "h200_compute_apps_busy.txt").read_text())
    assert check.checked
    assert check.warning == "GPUs already hold memory of another process: pid 624 python3 (4614 MiB)"


def test_the_empty_answer_of_an_idle_h200_is_no_warning():
    check = _check("")
    assert check.checked and check.warning is None
