"""Hostile text on the diagnosis's surfaces: a benchmark label and a journal line holding each
vector reach a finding's claim and evidence; `cockpit diagnose`, its
JSON and the findings screen's detail show them inert."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from hostile import NAMES, check_bytes, check_text, hostile_session

from cockpit.live.diagnosis.engine import diagnose
from cockpit.live.diagnosis.inputs import bundle
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.findings import finding_detail

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", NAMES)
def test_diagnose_output_and_the_detail_are_inert(tmp_path: Path, name: str) -> None:
    from hostile import VECTORS

    session = hostile_session(VECTORS[name])
    # a regression is like with like (issue 37): b2 runs b1's profile here, so b2's 500 tok/s
    # after b1's 900 at c=8 is one, with the hostile journal edit between them as its change
    session.benchmarks[1] = session.benchmarks[1].model_copy(update={"profile": "l1"})
    found = diagnose(bundle(session=session))
    reg = next(f for f in found if f.kind == "regression")
    assert "b2" in reg.benchmarks
    check_text(finding_detail(reg).plain, name, "findings screen detail")
    path = tmp_path / "s.toml"
    save_session(session, path)
    for extra in ((), ("--json",)):
        done = subprocess.run([sys.executable, "-m", "cockpit", "diagnose", str(path), *extra], capture_output=True,
                              timeout=60, cwd=REPO)
        assert done.returncode == 0, done.stderr
        check_bytes(done.stdout, name, "cockpit diagnose" + (" --json" if extra else ""), visible=not extra)
