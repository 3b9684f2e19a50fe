"""A file with thousands of problems is refused at once: the text is scanned one time to
place every problem (not once per problem), and the list stops at the first 50 plus a count."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from cockpit.store import locate
from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import loads_session


def _unknown_keys(n: int) -> str:
    return 'schema_version = 1\ntitle = "x"\n' + "".join(f"unknown_{i} = {i}\n" for i in range(n))


def test_the_text_is_scanned_once_however_many_problems(monkeypatch):
    calls = []
    real = locate.key_lines
    monkeypatch.setattr(locate, "key_lines", lambda text: calls.append(1) or real(text))
    with pytest.raises(SessionFileError):
        loads_session(_unknown_keys(200), "f.toml")
    assert len(calls) == 1


def test_ten_thousand_unknown_keys_are_refused_in_well_under_seconds_with_the_first_50_placed():
    text = _unknown_keys(10_000)
    assert len(text) > 99_000
    start = time.perf_counter()
    with pytest.raises(SessionFileError) as caught:
        loads_session(text, "f.toml")
    took = time.perf_counter() - start
    lines = caught.value.render().splitlines()
    assert took < 10, f"{took:.1f} s"
    assert lines[0] == "f.toml:3:1: unknown_0: unknown key"
    assert lines[49] == "f.toml:52:1: unknown_49: unknown key"
    assert len(lines) == 51 and lines[50] == "f.toml:53:1: ... and 9,950 more problems (fix these and check again)"


def test_check_lists_at_most_50_and_says_how_many_more(tmp_path: Path):
    path = tmp_path / "many.toml"
    path.write_text(_unknown_keys(120), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 51 and lines[-1].endswith("... and 70 more problems (fix these and check again)")
    assert lines[7] == f"{path}:10:1: unknown_7: unknown key"
