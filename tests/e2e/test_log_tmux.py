"""`cockpit log FILE` in tmux: the pane alone on a big log, its keys, its exit."""

from __future__ import annotations

from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

LINE = ("[2025-03-01 12:{m:02d}:{s:02d} TP0] Decode batch. #running-req: {r}, #token: 5000, "
        "token usage: 0.31, gen throughput (token/s): {g}.50, #queue-req: 2\n")


def _big_log(path: Path, n: int) -> None:
    """n lines, the last ones a crash: more than the preview, so both batches are seen."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(n):
            f.write(LINE.format(m=i // 60 % 60, s=i % 60, r=10 + i % 9, g=1000 + i % 500))
        f.write("[2025-03-01 13:00:00 TP0] Scheduler hit an exception: Traceback (most recent call last):\n")
        f.write('  File "/sgl/scheduler.py", line 2100, in run_scheduler_process\n')
        f.write("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
        f.write("[2025-03-01 13:00:01] the very last line\n")


def test_cockpit_log_opens_at_the_end_and_takes_keys(tmux, tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    _big_log(log, 60_000)
    tmux.start(f"{cockpit_program()} log {log}")
    screen = tmux.wait_for("the very last line")
    assert "Server log · follow" in screen
    assert "cuda_oom" in screen  # the crash's badge, from the parsed lines
    # the whole ring (50k of 60k lines) replaced the preview: no line twice, none lost
    tmux.wait_for("50,000 lines")
    tmux.wait_for("whole log:")  # the file's beginning, scanned in a child process
    tmux.keys("b")
    screen = tmux.wait_for("no batch lines")
    assert "Decode batch" not in screen.split("no batch lines", 1)[1]
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")


def test_cockpit_log_says_what_is_wrong_with_a_target(tmux, tmp_path: Path) -> None:
    tmux.start(f"{cockpit_program()} log ssh://@gpu1/var/log/sglang.log")
    screen = tmux.wait_for("COCKPIT-EXIT=2")
    assert "cockpit log: empty user in SSH target '@gpu1'" in screen
