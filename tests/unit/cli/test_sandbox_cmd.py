"""`cockpit sandbox DIR`: the session it makes (fixed names the README's first run uses), a
non-empty folder that is not a sandbox refused in one line with nothing written, and an
earlier sandbox kept as it was. SIMULATORS: the profiles start cockpit/sandbox/sglang_server.py."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from cockpit.cli import main
from cockpit.sandbox import SERVER
from cockpit.store.toml_store import load_session


@pytest.fixture(autouse=True)
def _state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)


def test_sandbox_makes_the_named_session_on_the_simulators(tmp_path: Path, capsys):
    assert main(["sandbox", "sbx"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("made sbx/session.toml: host local (this machine)") and "SIMULATED" in out
    session = load_session(tmp_path / "sbx" / "session.toml")
    assert [h.name for h in session.hosts] == ["local"]
    assert [p.id for p in session.launch] == ["l1", "l2"] and all(p.host == "local" for p in session.launch)
    assert [s.id for s in session.sweeps] == ["s1"] and [q.id for q in session.searches] == ["q1"]
    l1 = session.launch[0]
    assert str(SERVER) in l1.command and "--standin-surface" in l1.command
    python = Path(l1.python or "")
    assert python.is_absolute() and os.access(python, os.X_OK)  # the bench client's wrapper
    assert (python.parent / "standin-pkgs" / "sglang" / "benchmark" / "serving.py").is_file()
    host = session.hosts[0]
    assert host.run_dir == str(tmp_path / "sbx" / "runs") and host.dcgm_url == host.metrics_url


def test_default_folder_and_an_earlier_sandbox_is_kept(tmp_path: Path, capsys):
    assert main(["sandbox"]) == 0
    path = tmp_path / "cockpit-sandbox" / "session.toml"
    before = path.read_text()
    capsys.readouterr()
    assert main(["sandbox", "cockpit-sandbox"]) == 0
    assert "an earlier sandbox, kept as it was" in capsys.readouterr().out
    assert path.read_text() == before


def test_a_folder_with_other_files_is_refused_in_one_line(tmp_path: Path, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("a person's file\n")
    assert main(["sandbox", "mine"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mine: a folder that is not empty and not an earlier sandbox" in err
    assert sorted(p.name for p in mine.iterdir()) == ["notes.txt"]
    (tmp_path / "afile").write_text("x")
    assert main(["sandbox", "afile"]) == 1
    assert "afile: exists and is not a folder" in capsys.readouterr().err


def test_the_sandbox_has_a_target_the_base_misses_and_the_walk_as_tasks_with_real_keys(tmp_path: Path):
    """The targets strip and the board are not empty on the first open: a c=16 output target
    (the simulated base reads about 3,400-3,800 tok/s there, its best about 4,500) and the walk
    of docs/sandbox.md as tasks, each naming the keys bound to what it asks for."""
    from cockpit.model.enums import Metric
    from cockpit.ui.keys.actions import ACTIONS, TABS

    assert main(["sandbox", "sbx"]) == 0
    session = load_session(tmp_path / "sbx" / "session.toml")
    (target,) = session.goal.targets
    assert target.metric is Metric.OUTPUT_TOK_S and target.value == 4000
    assert (target.concurrency_min, target.concurrency_max) == (16, 16)
    keys = {spec.id: spec.keys.split(",")[0] for spec in ACTIONS}
    tabs = {name: key for name, *_, key in TABS}
    wanted = [(keys["experiment.sweep"], keys["launch.start"], tabs["launch"]),
              (keys["benchmarks.compare"], tabs["benchmarks"]),
              (keys["search.open"], keys["search.start"]),
              (keys["diagnosis.open"],),
              (tabs["handoff"],)]
    titles = [t.title for t in sorted(session.tasks, key=lambda t: t.order)]
    assert len(titles) == len(wanted)
    for title, named in zip(titles, wanted, strict=True):
        said = re.split(r"[\s,;()]+", title.split(":", 1)[1])
        assert all(key in said for key in named), (title, named)
