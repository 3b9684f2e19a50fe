"""A search tried as a new user would, in tmux: `Q` opens the Search view, `n` sets a search
up in its form (two flags of the base profile to vary, three launches), `s` shows the space,
the budget and the time estimate and asks, `y` runs it; `p` pauses after the first trial
(it finishes, no new one starts), `r` resumes, the table fills, `m` marks the best
configuration's profile working, and the saved file says so.

STAND-INS (labelled): the server is cockpit/sandbox/sglang_server.py with its response surface
(cockpit/sandbox/surface.py: speed and crashes follow the real flags), the bench client
cockpit/sandbox/bench_serving.py through the real `python -m sglang.bench_serving` argv.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from search_support import cleanup, search_session

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.enums import ProfileStatus
from cockpit.model.search.scoring import best_config
from cockpit.model.search.search import TrialStatus
from cockpit.store.toml_store import load_session

CAPTURES = Path(__file__).resolve().parents[2] / "benchmarks" / "out" / "search_tmux_captures.txt"


def test_search_set_up_run_paused_resumed_and_best_marked_working_in_tmux(tmux, tmp_path: Path):
    # outputs long enough that a trial runs for seconds: the test pauses one mid-run
    path, _ = search_session(tmp_path, with_search=False, output_len=400)
    shots: list[str] = []
    try:
        tmux.start(f"{cockpit_program()} {path}", width=150, height=42)
        tmux.wait_for("Main")
        tmux.keys("Q")
        tmux.wait_for("none yet: n makes one")
        tmux.keys("n")
        tmux.wait_for("New search")
        time.sleep(0.5)  # the form's first field takes focus just after it is drawn
        # name, profile, sweep, objective, 2nd objective, direction, at conc. 8, constraints, launches 3, repeats
        tmux.run("send-keys", "-t", "t", "graph bs x backend", "Tab", "Tab", "Tab", "Tab", "Tab", "Tab", "8", "Tab",
                 "Tab", "3", "Tab", "Tab")
        tmux.run("send-keys", "-t", "t", "-l", "cuda-graph-max-bs=4,16,256")
        tmux.run("send-keys", "-t", "t", "Enter")
        tmux.run("send-keys", "-t", "t", "-l", "moe-runner-backend=flashinfer_trtllm,triton")
        tmux.wait_for("moe-runner-backend=flashinfer_trtllm,triton")
        # a fixed seed: the sampler's picks are the same each run, and seed 7's second pick is the graph
        # batch of 256 (it crashes), whether or not the base is launched first
        tmux.run("send-keys", "-t", "t", "Tab", "7")
        shots.append(tmux.wait_until(lambda s: re.search(r"Seed\W+7\b", s) is not None,
                                     "the seed typed", timeout=10))
        tmux.keys("C-s")
        screen = tmux.wait_for("0 of 3 launches ended")
        assert "Search q1" in screen and "graph bs x backend" in screen and "output tok/s at c=8" in screen
        tmux.keys("s")
        screen = tmux.wait_for("Run search q1?")
        shots.append(screen)
        assert "--cuda-graph-max-bs: 4, 16, 256" in screen and "6 configurations in the space" in screen
        assert "up to 3 launches of l1 (base)" in screen and "about 42 min" in screen
        tmux.keys("y")
        tmux.wait_for("running", timeout=20)
        tmux.wait_until(lambda s: " running " in s and "box:" in s, "a running trial", timeout=30)
        tmux.keys("p")
        shots.append(tmux.wait_for("paused"))
        screen = tmux.wait_for("1 of 3 launches ended", timeout=60)  # the running trial finished ...
        time.sleep(2.0)
        screen = tmux.screen()
        assert "1 of 3 launches ended" in screen and "paused" in screen, screen  # ... and no new one started
        tmux.keys("r")
        screen = tmux.wait_for("3 of 3 launches ended", timeout=120)
        screen = tmux.wait_for("idle", timeout=30)
        shots.append(screen)
        assert "best: trial" in screen and "crashed" in screen  # the graph batch of 256 runs out of memory
        tmux.keys("m")
        shots.append(tmux.wait_for("is the working profile"))
        tmux.keys("Escape")
        tmux.wait_for("Main")
        tmux.keys("C-s")
        tmux.wait_for(" saved")
        tmux.keys("q")
        tmux.wait_for("COCKPIT-EXIT=0")
    finally:
        cleanup(tmp_path)
        CAPTURES.parent.mkdir(exist_ok=True)
        CAPTURES.write_text("\n\n".join(shots), encoding="utf-8")
    saved = load_session(path)
    search = saved.searches[0]
    assert search.seed == 7  # the form's seed, kept in the file
    assert len(search.trial) == 3 and all(t.status is not TrialStatus.RUNNING for t in search.trial)
    best = best_config(search)
    assert best is not None
    assert next(p for p in saved.launch if p.id == best.first.profile).status is ProfileStatus.WORKING
