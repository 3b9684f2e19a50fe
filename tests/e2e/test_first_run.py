"""The README's "## First run", typed literally: its one ```bash block is read from README.md
and each line runs as written (bash, in a fresh empty folder, with the venv's `cockpit` entry
point first on PATH and HOME elsewhere); the last line, the TUI, runs in tmux, shows the
session and its Search view, and quits with `q`. Each command's exit status and a line a
person reads are checked, so the README cannot promise a first run that does not work.

SIMULATORS (labelled): `cockpit sandbox` makes the session on cockpit/sandbox/ (a stand-in
SGLang server with its response surface and noise, a stand-in bench client), no GPU.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from standin.procs import kill_groups_left

from tmux_driver import tmux  # noqa: F401  (tmux is the fixture)

from cockpit.store.toml_store import load_session

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"


def first_run_lines(text: str) -> list[str]:
    """The command lines of the "## First run" section's one fenced bash block."""
    section = re.search(r"^## First run\n(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert section, "README.md has no '## First run' section"
    blocks = re.findall(r"^```bash\n(.*?)^```", section.group(1), re.M | re.S)
    assert len(blocks) == 1, f"'## First run' holds {len(blocks)} bash blocks, not one"
    return [line for line in blocks[0].splitlines() if line.strip() and not line.lstrip().startswith("#")]


def _bin_dir() -> Path:
    """The venv's bin folder, where its `cockpit` entry point lives (installed with the package)."""
    folder = Path(sys.executable).parent
    assert (folder / "cockpit").exists(), f"no `cockpit` entry point beside {sys.executable}: pip install -e ."
    return folder


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "COCKPIT_"))}
    env.update(PATH=f"{_bin_dir()}{os.pathsep}{env.get('PATH', '')}", HOME=str(home),
               XDG_STATE_HOME=str(home / "state"), XDG_CONFIG_HOME=str(home / "config"))
    return env


# What each command must print (its first two words name it), beside exit status 0.
EXPECT: dict[str, list[str]] = {
    "cockpit sandbox": [r"made sbx/session\.toml: host local", r"cockpit run sbx/session\.toml l1"],
    "cockpit run": [r"l1 \(.*\) on local: ready in \d+(\.\d+)? s"],
    "cockpit sweep": [r"\[1/3\] c=1 recorded b1: [\d,]+ tok/s total.* steady [\d.]+ output tok/J", r"\[3/3\] c=16 recorded b3",
                      r"sweep s1 \(.*\) on l1: 3 of 3 points recorded"],
    # trial 0 is the base, which the sweep measured: reused, not launched; the rest launched on local
    "cockpit tune": [r"trial 0 \(measured before: reused, not launched\) ok: as the base · output_tok_s at c=16 [\d,]+ tok/s",
                     r"trial [1-9]\d* on local ok: .* · output_tok_s at c=16 [\d,]+ tok/s",
                     r"done: \d+ launches \+ 1 reused; best trial \d+: .* · output_tok_s median [\d,]+ tok/s"
                     r"( \([\d,]+–[\d,]+, n=\d+\))?(, estimate [\d,]+ tok/s from every launch)?; "],
    # a finding, its evidence naming benchmarks, and its key (the situation: host, GPUs or profiles)
    "cockpit diagnose": [r"(?m)^\w+ +\d+%  \S", r"· b\d+ .*\(b\d+\)", r"key: \w+:\S"],
}


def test_readme_first_run_typed_literally(tmux, tmp_path: Path):
    lines = first_run_lines(README.read_text())
    assert len(lines) == 6 and lines[0].startswith("cockpit sandbox ") and lines[-1].split()[:2] == [
        "cockpit", "sbx/session.toml"], lines
    work, home = tmp_path / "work", tmp_path / "home"
    work.mkdir()
    home.mkdir()
    env = _env(home)
    try:
        for line in lines[:-1]:
            done = subprocess.run(["bash", "-c", line], cwd=work, env=env, capture_output=True, text=True,
                                  timeout=240)
            said = done.stdout + done.stderr
            assert done.returncode == 0, f"{line!r} exited {done.returncode}:\n{said}"
            name = " ".join(line.split()[:2])
            for pattern in EXPECT[name]:
                assert re.search(pattern, said), f"{line!r} did not print /{pattern}/:\n{said}"
        session = load_session(work / "sbx" / "session.toml")
        search = next(s for s in session.searches if s.id == "q1")
        # the budget's 8 launches and 2 relaunches are spent (a relaunch the race does not need goes to a new
        # configuration), and the base's sweep is reused (no launch)
        assert len([t for t in search.trial if not t.reused]) == search.trials + search.repeats == 10
        assert len([t for t in search.trial if t.repeat_of is None and not t.reused]) >= search.trials
        assert [t.number for t in search.trial if t.reused] == [0]
        assert {b.concurrency for b in session.benchmarks if b.profile == "l1"} == {1, 4, 16}
        # every launch on the session's host `local`: its run folder in sbx/, its GPU source the simulator's
        assert {t.host for t in search.trial} == {"local"} and {p.host for p in session.launch} == {"local"}
        assert "The server is fired up and ready to roll!" in (work / "sbx" / "runs" / "server.log").read_text()
        # the simulated GPU power, read as dcgm-exporter's, inside every point's main run
        unpowered = [(b.id, b.concurrency, b.notes) for b in session.benchmarks if not b.power_mean_w]
        assert session.benchmarks and not unpowered, unpowered
        # and the sweep's energy over its steady window, from the client's per-request timings
        swept = [b for b in session.benchmarks if b.sweep == "s1" and b.profile == "l1"]
        unsteady = [(b.id, b.notes) for b in swept if not (b.steady_output_tok_per_joule and b.steady_from)]
        assert len(swept) == 3 and not unsteady, unsteady

        tmux.env.update(HOME=str(home))
        # the line as bash reads it (its comment included), inside the driver's wrapper
        tmux.start(f"cd {shlex.quote(str(work))} && PATH={shlex.quote(env['PATH'])} bash -c {shlex.quote(lines[-1])}",
                   width=150, height=42)
        screen = tmux.wait_for("sandbox: a SIMULATED SGLang server on this machine", timeout=30)
        assert "local" in screen
        tmux.keys("Q")  # the Search view
        # the title wraps onto a second line where it is long: read it as one line (the search's
        # name is in the header too, its end being where the person left off: wait for the view's line)
        screen = tmux.wait_until(lambda s: "Search q1 idle" in " ".join(s.split()), "the Search view", timeout=20)
        assert "graph bs x MoE backend x memory" in " ".join(screen.split()), screen
        assert re.search(r"Search q1 idle · .* · \d+ (of \d+ )?launches ended", " ".join(screen.split())), screen
        assert re.search(r"best: trial \d+ \(l\d+\)", screen), screen
        tmux.keys("Escape", "q")
        tmux.wait_for("COCKPIT-EXIT=0", timeout=20)
    finally:
        stop = subprocess.run(["cockpit", "stop", "sbx/session.toml"], cwd=work, env=env, capture_output=True,
                              text=True, timeout=60)
        kill_groups_left(work / "sbx" / "runs", "*/*.pid")
    assert stop.returncode == 0, stop.stdout + stop.stderr
