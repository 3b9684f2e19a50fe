"""`cockpit diagnose`: files a colleague pasted stand in for the live hosts."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from paths import EXAMPLE_SESSION

from cockpit.store.toml_store import load_session

REPO = Path(__file__).resolve().parents[3]
DEMO = REPO / "sessions" / "demo"
PCIE = "pcie_downgrade::5:gen5 x8<gen5 x16"


def cockpit(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True,
                          timeout=60, cwd=REPO)


def test_findings_from_pasted_files_most_confident_first(tmp_path: Path) -> None:
    session = shutil.copy(EXAMPLE_SESSION, tmp_path / "s.toml")
    done = cockpit("diagnose", session, "--log", DEMO / "sglang-server.log", "--gpus", DEMO / "nvidia-smi-query.csv",
                   "--topo", DEMO / "nvidia-smi-topo.txt", "--metrics", DEMO / "sglang-metrics-a.txt",
                   DEMO / "sglang-metrics-b.txt")
    assert done.returncode == 0, done.stderr
    heads = [line.split()[0] for line in done.stdout.splitlines() if line and not line.startswith(" ")]
    assert heads[:2] == ["regression", "kv_pressure"]
    assert {"cuda_graph_ceiling", "pcie_downgrade", "comm_bound", "numa_split", "power_starved"} <= set(heads)
    assert "candidate flags: --cuda-graph-max-bs 1024" in done.stdout
    assert "(log lines " in done.stdout  # evidence points into the log


def test_json_then_dismiss_and_accept_are_remembered(tmp_path: Path) -> None:
    session = shutil.copy(EXAMPLE_SESSION, tmp_path / "s.toml")
    gpus = ("--gpus", DEMO / "nvidia-smi-query.csv")
    found = json.loads(cockpit("diagnose", session, *gpus, "--json").stdout)["findings"]
    pcie = next(f for f in found if f["kind"] == "pcie_downgrade")
    assert pcie["key"] == PCIE and pcie["evidence"][0]["gpus"] == [5] and 0 < pcie["confidence"] < 1
    done = cockpit("diagnose", session, *gpus, "--dismiss", PCIE)
    assert done.returncode == 0 and done.stdout.startswith("dismissed: GPU 5's PCIe link")
    again = json.loads(cockpit("diagnose", session, *gpus, "--json").stdout)
    assert PCIE not in [f["key"] for f in again["findings"]]
    assert again["decided"][0]["decision"] == "dismissed"
    done = cockpit("diagnose", session, "--accept", "regression:b2")
    assert done.returncode == 0 and "accepted as discovery d8 (hypothesis)" in done.stdout
    s = load_session(session)
    assert next(d for d in s.discoveries if d.id == "d8").benchmarks == ["b2"]
    assert cockpit("diagnose", session, "--accept", "regression:b2").returncode == 1  # decided already


def test_a_file_that_is_not_what_it_says_is_named(tmp_path: Path) -> None:
    session = shutil.copy(EXAMPLE_SESSION, tmp_path / "s.toml")
    (tmp_path / "gpus.csv").write_text("hello\n")
    done = cockpit("diagnose", session, "--gpus", tmp_path / "gpus.csv")
    assert done.returncode == 1 and "gpus.csv: no GPU sample in it" in done.stdout
    done = cockpit("diagnose", session, "--log", tmp_path / "missing.log")
    assert done.returncode == 1 and "missing.log" in done.stdout


def test_a_dismissed_situation_stays_dismissed_whatever_runs_arrive(tmp_path: Path) -> None:
    """Keys name the situation (kind, host, GPUs, profile), not the runs: after a dismiss, new
    benchmarks of the same profile (`cockpit add benchmark`) bring nothing back (issue 37)."""
    from cockpit.live.diagnosis.engine import diagnose
    from cockpit.live.diagnosis.load import inputs_from_files

    session = shutil.copy(EXAMPLE_SESSION, tmp_path / "s.toml")
    files = ("--gpus", DEMO / "nvidia-smi-query.csv", "--topo", DEMO / "nvidia-smi-topo.txt")
    found = json.loads(cockpit("diagnose", session, *files, "--json").stdout)["findings"]
    keys = {f["kind"]: f["key"] for f in found}
    for kind in ("power_starved", "comm_bound"):
        assert cockpit("diagnose", session, *files, "--dismiss", keys[kind]).returncode == 0
    for conc, tok, watts in ((1536, 3770, 336), (2048, 3790, 341)):
        done = cockpit("add", "benchmark", session, f"sweep c={conc}", "--profile", "l1", "--concurrency", conc,
                       "--total-tok-s", tok, "--notes", f"GPUs at ~{watts} W of 600 W.")
        assert done.returncode == 0, done.stderr
    added = [b.id for b in load_session(session).benchmarks][-2:]
    # the new runs belong to the situation: undecided, the same finding would cite them, same key
    fresh = diagnose(inputs_from_files(load_session(session), gpus=DEMO / "nvidia-smi-query.csv",
                                       topo=DEMO / "nvidia-smi-topo.txt"))
    starved = next(f for f in fresh if f.kind == "power_starved")
    assert set(added) <= set(starved.benchmarks) and starved.key == keys["power_starved"]
    again = json.loads(cockpit("diagnose", session, *files, "--json").stdout)["findings"]
    assert not {"power_starved", "comm_bound"} & {f["kind"] for f in again}
