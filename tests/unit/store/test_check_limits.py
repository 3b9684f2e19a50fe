"""`cockpit check` applies the limits a write applies (issue 34, item 6): 5,000 dimensions or a
20,000-character search name used to pass `check` and then fail in `tune`, when a trial's
record was refused. One definition of each bound (model/text_limits.py, model/search/search.py)
is read by both; a file `check` passes is one whose trials `tune` can record."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import tomli_w
from search_support import search_session

from cockpit.control.search.loop import derive_trial
from cockpit.control.transaction import edit
from cockpit.model.search.search import MAX_DIMENSIONS, Search
from cockpit.model.text_limits import MAX_LONG_TEXT, MAX_SHORT_TEXT
from cockpit.store.toml_store import load_session, to_data

REPO = Path(__file__).resolve().parents[3]


def check(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          cwd=REPO, timeout=60, stdin=subprocess.DEVNULL)


def written(tmp_path: Path, change) -> Path:  # noqa: ANN001 -- edits the plain data, as a hand edit does
    path, _ = search_session(tmp_path)
    data = to_data(load_session(path))
    change(data["searches"][0])
    path.write_text(tomli_w.dumps(data, multiline_strings=True))
    return path


def line_of(path: Path, start: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if line.startswith(start))


def test_five_thousand_dimensions_fail_check_at_the_space(tmp_path: Path) -> None:
    path = written(tmp_path, lambda q: q.__setitem__("space", {f"--f{i}": [1, 2] for i in range(5000)}))
    done = check(path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"{path}:")
    assert f"5,000 dimensions; at most {MAX_DIMENSIONS}" in done.stderr
    with pytest.raises(ValueError, match=f"5,000 dimensions; at most {MAX_DIMENSIONS}"):  # and at any write
        Search(id="q2", name="x", profile="l1", sweep="s1", space={f"--f{i}": [1, 2] for i in range(5000)})


def test_a_twenty_thousand_character_search_name_fails_check_at_its_line(tmp_path: Path) -> None:
    path = written(tmp_path, lambda q: q.__setitem__("name", "n" * 20_000))
    done = check(path)
    assert done.returncode == 1 and done.stdout == ""
    line = line_of(path, 'name = "nnn')
    assert done.stderr.strip() == (f"{path}:{line}:1: searches[0].name: 20,000 characters, "
                                   f"over the {MAX_SHORT_TEXT:,}-character limit for it")


def test_a_space_whose_trial_commands_outgrow_the_command_limit_fails_check(tmp_path: Path) -> None:
    long = "v" * 2000
    path = written(tmp_path, lambda q: q.__setitem__("space", {f"--f{i}": [long, "short"] for i in range(40)}))
    done = check(path)
    assert done.returncode == 1
    assert f"over the {MAX_LONG_TEXT:,}-character limit for a command" in done.stderr


def test_what_check_passes_a_trial_can_record(tmp_path: Path) -> None:
    """The most a check passes: 64 dimensions with long flag names; the trial's derived profile
    (its name a label cut at 200 characters) is written under the write's bounds."""
    space = {f"--flag-{i:02d}-" + "x" * 180: ["a" * 500, "b"] for i in range(MAX_DIMENSIONS)}
    path = written(tmp_path, lambda q: q.__setitem__("space", space))
    done = check(path)
    assert done.returncode == 0, done.stderr
    params = {key: "a" * 500 for key in space}
    trial = edit(path, lambda e: derive_trial(e, "q1", 0, params, "box"), "search")
    profile = next(p for p in load_session(path).launch if p.id == trial.profile)
    assert len(profile.name) <= 210 and profile.name.endswith(" …")
    assert all(f"{key} {'a' * 500}" in profile.command for key in space)
