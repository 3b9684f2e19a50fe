"""A trial whose server gets ready and dies on its first request crashed (the configuration's
fault, with the log's first error line), not failed (issue 34, item 6): the STAND-IN server's
`--standin-crash serve` dies as SGLang does, a traceback ending in CUDA out of memory."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from search_support import cleanup, search_session

from cockpit.model.enums import ProfileStatus
from cockpit.model.search.search import TrialStatus
from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]


def test_a_server_that_dies_on_its_first_request_is_a_crashed_trial(tmp_path: Path) -> None:
    try:
        path, _ = search_session(tmp_path, trials=1, space={"--cuda-graph-max-bs": [4, 16]},
                                 extra=("--standin-crash", "serve"), concurrencies=(2, 8))
        done = subprocess.run([sys.executable, "-m", "cockpit", "tune", str(path), "q1", "--yes"], cwd=REPO,
                              capture_output=True, text=True, timeout=240, stdin=subprocess.DEVNULL)
    finally:
        cleanup(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # a crash is the configuration's: not a failed run
    session = load_session(path)
    (trial,) = session.searches[0].trial
    assert trial.status is TrialStatus.CRASHED and trial.value is None
    assert trial.error.startswith("cuda_oom: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert trial.ready_s is not None  # it did get ready first
    profile = next(p for p in session.launch if p.id == trial.profile)
    assert profile.status is ProfileStatus.BROKEN and profile.broken_reason.startswith("cuda_oom while serving: ")
    # the trial line: the flags it changed and the crash's first error line
    assert "trial 0 on box crashed: --cuda-graph-max-bs " in done.stdout
    assert " · cuda_oom: torch.OutOfMemoryError: CUDA out of memory" in done.stdout
