"""Issue 23's "Done when" walk, in tmux at 80x24 and at 200x50: from `cockpit new`, a campaign
(title, a host whose GPUs are read), two launch profiles and a sweep are set up in the app,
the sweep runs on each profile, and compare reads TTFT p99 and tok/J for both — never
opening the TOML file. The screens of the key moments are kept (COCKPIT_WALK_CAPTURES=DIR
writes them there as text, for the lead's note).

STAND-INS (labelled): the server is cockpit/sandbox/sglang_server.py, the bench client
cockpit/sandbox/bench_serving.py (through the real `-m sglang.bench_serving` argv, made by
tests/sweep_support.py), and the host's GPU source a STAND-IN dcgm-exporter
(cockpit/sandbox/dcgm_exporter.py) whose two GPUs draw 400 W each while the stand-in server's
log shows running requests: power and tok/J are recorded from its samples over each point.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from standin.procs import free_port, kill_groups_left, standin_command

from sweep_support import make_bench_python
from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.sandbox import DCGM_EXPORTER
from cockpit.store.toml_store import load_session

EXPORTER = DCGM_EXPORTER
TITLE = "GLM-5 walk"


class Walk:
    def __init__(self, tmux, size: tuple[int, int]) -> None:  # noqa: ANN001
        self.tmux, self.size = tmux, size
        self.shots: list[tuple[str, str]] = []

    def see(self, text: str, shot: str | None = None, timeout: float = 30.0) -> str:
        screen = self.tmux.wait_for(text, timeout=timeout)
        if shot:
            self.shots.append((shot, screen))
        return screen

    def until(self, check, what: str, shot: str | None = None, timeout: float = 30.0) -> str:  # noqa: ANN001
        screen = self.tmux.wait_until(check, what, timeout=timeout)
        if shot:
            self.shots.append((shot, screen))
        return screen

    def type(self, *fields: str) -> None:
        """Each text into the focused field, Tab between them ("" leaves a field as it is).
        A person reads the form before typing: keys sent the instant a form is drawn, before
        its first field has focus, are not typed anywhere (Textual's focus comes on mount)."""
        first, *rest = fields
        time.sleep(1.0)  # a person reads the form first; keys before its first field has focus are lost
        self.tmux.run("send-keys", "-t", "t", "-l", first)
        self.tmux.wait_until(lambda s: re.search(rf"(Name|title) *│? *{re.escape(first)}", s) is not None
                             or f"│  {first}" in s, f"{first!r} in the form's first field", timeout=5)
        for text in rest:
            self.tmux.keys("Tab")
            if text:
                self.tmux.run("send-keys", "-t", "t", "-l", text)
                time.sleep(0.15)

    def save(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        w, h = self.size
        for n, (name, screen) in enumerate(self.shots, start=1):
            (folder / f"{w}x{h}-{n:02d}-{name}.txt").write_text(screen)


def _exporter(log: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, str(EXPORTER), "--port", "0", "--follow-log", str(log)],
                            stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline() if proc.stdout else ""
    found = re.search(r"http://\S+", line)
    assert found, f"the stand-in exporter said {line!r}"
    return proc, found.group(0)


def _compare_rows(screen: str) -> list[list[str]]:
    """The compare table's rows: concurrency, A, B, change."""
    return [re.findall(r"[-+]?[\d.]+%?", line.split("│")[1].split("▌")[0]) for line in screen.splitlines()
            if re.match(r"│\s+\d+\s+[\d.]", line)]


def _rows_whole(screen: str) -> bool:
    """Every compare row shows its four cells and the table's right edge (no toast over it)."""
    lines = [line for line in screen.splitlines() if re.match(r"│\s+\d+\s+[\d.—]", line)]
    return len(lines) >= 2 and all(re.match(r"│\s+\d+(\s+\S+){3}\s+│", line) for line in lines)


def _dialog_text(screen: str) -> str:
    """A dialog's text, its rows joined as they wrap (a path cut at the box's edge reads whole)."""
    return "".join(m.group(1).rstrip() for line in screen.splitlines() if (m := re.search(r"│  (.*)│", line)))


def _metric(walk: Walk, title: str, shot: str) -> list[list[str]]:
    """`m` until compare shows `title`; its rows, each with both profiles' figures."""
    for _ in range(12):
        screen = walk.tmux.screen()
        if f"Compare {title} " in screen:
            break
        walk.tmux.keys("m")
        walk.tmux.wait_until(lambda s, before=screen: s != before, "the next metric", timeout=5)
    # A toast (a sweep's "2 of 2 points", a stop) may sit over the right of the table at 80x24:
    # read as a person does, once the rows are whole again (toasts go within seconds).
    screen = walk.until(lambda s: f"Compare {title} " in s and _rows_whole(s), f"compare on {title}, rows whole",
                        shot, timeout=40)
    rows = _compare_rows(screen)
    assert [r[0] for r in rows] == ["1", "2"] and all(len(r) >= 3 for r in rows) and "no runs" not in screen, screen
    return rows


@pytest.mark.parametrize("size", [(200, 50), (80, 24)], ids=["200x50", "80x24"])
def test_campaign_sweep_and_compare_on_ttft_p99_and_tok_per_joule_set_up_in_the_app(tmux, tmp_path, size):
    width, height = size
    tmux.env["HOME"] = str(tmp_path)  # the host's default run folder, ~/.cockpit/runs, lands here
    runs = tmp_path / ".cockpit" / "runs"
    path, log = tmp_path / "walk.toml", tmp_path / "server.log"
    made = subprocess.run([*cockpit_program().split(), "new", str(path)], capture_output=True, text=True,
                          env={**os.environ, **tmux.env})
    assert made.returncode == 0, made.stderr
    python = make_bench_python(tmp_path / "py")
    exporter, dcgm_url = _exporter(log)
    walk = Walk(tmux, size)
    commands = [standin_command(sys.executable, free_port(), "--standin-load-s", "0.3", "--standin-capture-s", "0.3",
                                "--standin-tok-s", str(tok_s), "--decode-log-interval", "4") for tok_s in (100, 250)]
    try:
        tmux.start(f"{cockpit_program()} {path}", width=width, height=height)
        walk.see("todo · 0", "opened")
        # the title and the host, on the Goal tab
        tmux.keys("2", "N")
        walk.see("Campaign title", "title-prompt")
        walk.type(TITLE)
        tmux.keys("Enter")
        walk.see(TITLE)
        tmux.keys("H")
        walk.see("New host")
        walk.type("box", "", "", str(log), "")
        tmux.keys("Tab", "Enter")  # GPU source: its list opens; none -> dcgm, one up
        walk.see("nvidia-smi")
        tmux.keys("Up", "Enter")
        walk.until(lambda s: re.search(r"GPU source +dcgm", s) is not None, "GPU source dcgm")
        tmux.keys("Tab")
        tmux.run("send-keys", "-t", "t", "-l", "0.2")
        tmux.keys("Tab")
        tmux.run("send-keys", "-t", "t", "-l", dcgm_url)
        walk.see(dcgm_url, "host-form")
        tmux.keys("C-s")
        walk.see("box  this machine", "goal-tab")
        # two launch profiles and a sweep, on the Launch tab
        tmux.keys("7")
        walk.see("No launch profiles recorded", "empty-launch")
        for ident, name, command in (("l1", "tp1 slow", commands[0]), ("l2", "tp1 fast", commands[1])):
            tmux.keys("a")
            walk.see("New launch profile")
            walk.type(name, command, "box", python)
            tmux.keys("C-s")
            walk.see(f"candidate {ident} {name}", f"profile-{ident}-added")
            if ident == "l1":
                tmux.keys("b")
                walk.see("New sweep", "sweep-form")
                # the form shows only the random dataset's own fields (no dataset path, no trace fields)
                walk.type("walk", "", "1 2", "16", "32", "", "8")
                walk.see("Prompts /     8", "sweep-filled")
                tmux.keys("C-s")
                walk.see("Sweep s1 added", "sweep-added")
        tmux.keys("Up")
        time.sleep(0.3)
        for ident in ("l1", "l2"):
            tmux.keys("r")
            walk.see(f"Start {ident}?", f"start-{ident}-asks")
            tmux.keys("y")
            # the run line under the tabs, or the toast over it (80x24)
            walk.until(lambda s, i=ident: f"box: {i} ready in" in s or f"{i} (tp1" in s and "on box: ready in" in s,
                       f"{ident} ready", timeout=60)
            # the sweep's seal covers the server it talks to: l2's server listens on another port,
            # so the person is asked on each profile, and the question names that port
            tmux.keys("B")
            done = f"on {ident}: 2 of 2 points recorded"
            screen = walk.until(lambda s, d=done: "Run sweep s1" in s or "sweep point" in s or d in s,
                                "the sweep asked or running", f"sweep-on-{ident}")
            # the keys to answer in sight (the commands scroll), the interpreter and port named
            assert f"Run sweep s1 (walk) on {ident}?" in screen and "y: run it" in screen, screen
            said = _dialog_text(screen)  # a long path wraps mid-word at 80 columns
            port = re.search(r"--port (\d+)", commands[int(ident[1]) - 1])
            assert "py/python-standin" in said and port and re.search(rf"--port\s*{port.group(1)}\b", said), screen
            assert "-m sglang.bench_serving" in screen.replace("\n", " ") or width < 100, screen
            tmux.keys("y")
            # its toast, or the selected profile's count under its command (the toast may be gone by then)
            walk.until(lambda s, d=done: d in s or "2 benchmark(s), best" in s, f"the sweep on {ident} done",
                       f"sweep-on-{ident}-done", timeout=90)
            tmux.keys("X")
            walk.see(f"Stop {ident} on host box?")
            tmux.keys("y")
            walk.until(lambda s, i=ident: not any(i in line and "▶ ready" in line for line in s.splitlines()),
                       f"{ident} stopped", timeout=30)
            if ident == "l1":
                tmux.keys("Down")
        # read: the Benchmarks table, then compare on TTFT p99 and tok/J
        tmux.keys("4")
        walk.see("4 benchmarks", "benchmarks")
        tmux.keys("c")
        walk.see("Compare total tok/s", "compare")
        ttft = _metric(walk, "TTFT p99 ms", "compare-ttft-p99")
        tok_j = _metric(walk, "tok/J total", "compare-tok-per-joule")
        _metric(walk, "tok/J output", "compare-output-tok-per-joule")
        tmux.keys("Escape")
        tmux.keys("q")
        walk.see("COCKPIT-EXIT=0", timeout=20)
    finally:
        kill_groups_left(runs)
        exporter.terminate()
        exporter.wait(timeout=10)
        walk.save(Path(os.environ.get("COCKPIT_WALK_CAPTURES") or tmp_path / "captures"))

    session = load_session(path)
    assert session.title == TITLE
    (host,) = session.hosts
    assert (host.gpu_source.value, host.dcgm_url) == ("dcgm", dcgm_url)
    benches = session.benchmarks
    assert sorted((b.profile, b.concurrency) for b in benches) == [("l1", 1), ("l1", 2), ("l2", 1), ("l2", 2)]
    for bench in benches:  # every point has the figures compare read, power from the stand-in exporter
        assert bench.ttft_p99_ms is not None and bench.power_mean_w and bench.tok_per_joule
        assert 140.0 <= bench.power_mean_w <= 800.0  # two STAND-IN GPUs, 70 W idle to 400 W busy each
    by = {(b.profile, b.concurrency): b for b in benches}
    for (conc, a, b, *_change), tok in zip(ttft, tok_j):  # the change column may sit under a toast
        assert float(a) == pytest.approx(by[("l1", int(conc))].ttft_p99_ms, rel=0.01, abs=0.01)
        assert float(b) == pytest.approx(by[("l2", int(conc))].ttft_p99_ms, rel=0.01, abs=0.01)
        # compare shows tok/J to a few digits, fewer in a narrow column (0.154 as 0.15)
        assert float(tok[1]) == pytest.approx(by[("l1", int(conc))].tok_per_joule, rel=0.05)
        assert float(tok[2]) == pytest.approx(by[("l2", int(conc))].tok_per_joule, rel=0.05)
