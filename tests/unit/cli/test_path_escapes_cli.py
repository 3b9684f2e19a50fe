"""A file name is text from whoever named the file: one holding OSC 0 (window title) and
OSC 52 (clipboard) escapes, given to every command, reaches the terminal only in its inert
form (`␛]0;PWNED␇`), on stdout and stderr, whether the file is missing, broken or fine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.model.session import Session
from cockpit.store.toml_store import save_session

OSC = "\x1b]0;PWNED\x07\x1b]52;c;SGVsbG8=\x07"
SHOWN = "␛]0;PWNED␇␛]52;c;SGVsbG8=␇".encode()


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("names") / f"d{OSC}"
    d.mkdir()
    (d / "broken.toml").write_text("[session\n")
    save_session(Session(title="fine"), d / "good.toml")
    (d / "log.txt").write_text("no result block here\n")
    with (d / "big.txt").open("wb") as f:
        f.truncate(64 << 20)  # over the input cap (a hole: no disk)
    return d


CASES = {
    "check missing": ("check", "{d}/missing.toml"),
    "check broken": ("check", "{d}/broken.toml"),
    "check ok": ("check", "{d}/good.toml"),
    "check a folder": ("check", "{d}"),
    "fmt missing": ("fmt", "{d}/missing.toml"),
    "fmt broken": ("fmt", "{d}/broken.toml"),
    "fmt --check": ("fmt", "--check", "{d}/unformatted.toml"),
    "fmt": ("fmt", "{d}/unformatted.toml"),
    "timeline missing": ("timeline", "{d}/missing.toml"),
    "timeline broken": ("timeline", "{d}/broken.toml"),
    "export missing": ("export", "{d}/missing.toml"),
    "export broken": ("export", "{d}/broken.toml"),
    "export -o no folder": ("export", "{d}/good.toml", "-o", "{d}/none/out.md"),
    "diff missing": ("diff", "{d}/missing.toml", "a", "b"),
    "diff broken": ("diff", "{d}/broken.toml", "a", "b"),
    "diff no profile": ("diff", "{d}/good.toml", "a", "b"),
    "mcp missing": ("mcp", "{d}/missing.toml"),
    "mcp broken": ("mcp", "{d}/broken.toml"),
    "add missing": ("add", "note", "{d}/missing.toml", "x"),
    "add broken": ("add", "note", "{d}/broken.toml", "x"),
    "add a folder": ("add", "note", "{d}", "x"),
    "bench import missing log": ("bench", "import", "{d}/good.toml", "{d}/missing.log"),
    "bench import no result": ("bench", "import", "{d}/good.toml", "{d}/log.txt"),
    "bench import broken": ("bench", "import", "{d}/broken.toml", "{d}/log.txt"),
    "parse-log missing": ("parse-log", "{d}/missing.log"),
    "metrics missing": ("metrics", "{d}/missing.txt"),
    "drift broken": ("drift", "{d}/broken.toml"),
    "drift no packages": ("drift", "{d}/good.toml"),
    "run broken": ("run", "{d}/broken.toml", "p1"),
    "stop broken": ("stop", "{d}/broken.toml"),
    "sweep broken": ("sweep", "{d}/broken.toml", "s1"),
    "topo missing": ("topo", "{d}/missing.txt"),
    "open broken (the TUI)": ("{d}/broken.toml",),
    "open where none can be made": ("{d}/good.toml/new.toml",),
    "metrics over the cap": ("metrics", "{d}/big.txt"),
}


@pytest.mark.parametrize("args", CASES.values(), ids=CASES.keys())
def test_a_path_with_escapes_is_shown_inert(place, args):
    (place / "unformatted.toml").write_text('[session]\ntitle =   "x"\n')
    argv = [a.format(d=place) for a in args]
    done = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    out = done.stdout + done.stderr
    assert b"\x1b" not in out and b"\x07" not in out, out
    assert SHOWN in out, f"the path is still recognisable: {out!r}"
