"""Topology pastes as real hosts and real pastes bend them, pinned by cases of our own.

tests/data/topo/ holds public pastes from the corpus (tests/data/corpus) changed the way hosts and
pastes change them (blank affinity cells, a wrapped header, a container-log prefix on
every line); `make_cases.py` there derives them, and each `*.expect.json` is the source's
own expectation with the same change made by hand.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.parse.gpu.nvsmi_topo import parse_topology

REPO = Path(__file__).resolve().parents[3]
CASES = REPO / "tests" / "data" / "topo"
CORPUS = REPO / "tests" / "data" / "corpus" / "nvidia-smi"
NAMES = sorted(p.stem for p in CASES.glob("*.txt"))


def _expected(name: str) -> dict:
    return json.loads((CASES / f"{name}.expect.json").read_text())


def _shape(detail: dict, expected: dict) -> dict:
    """The corpus shape plus the detail keys a case pins (GPU NUMA ID)."""
    return {k: detail.get(k) for k in expected}


def test_there_are_cases_for_each_bend():
    kinds = {"blank-cpu", "blank-cpu-and-numa", "blank-cells-padded", "wrapped-header", "prefix"}
    assert all(any(k in n for n in NAMES) for k in kinds), NAMES


@pytest.mark.parametrize("name", NAMES)
def test_every_case_parses_to_its_expected_json(name):
    topo = parse_topology((CASES / f"{name}.txt").read_text(encoding="utf-8"))
    expected = _expected(name)
    assert _shape(topo.to_json(detail=True), expected) == expected
    assert topo.warnings == (), topo.warnings


def test_the_cases_are_what_the_maker_derives_from_the_public_corpus(tmp_path):
    assert (CORPUS / "index.tsv").is_file(), f"corpus missing: {CORPUS}"
    out = subprocess.run(
        [sys.executable, str(CASES / "make_cases.py"), str(tmp_path)],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    made = sorted(p.name for p in tmp_path.iterdir())
    assert made == sorted(p.name for p in CASES.iterdir() if p.suffix in (".txt", ".json"))
    for name in made:
        assert (tmp_path / name).read_bytes() == (CASES / name).read_bytes(), name


@pytest.mark.parametrize(
    "name", ["blank-cpu-and-numa-expanded", "wrapped-header-paste", "container-log-prefix"]
)
def test_the_topo_command_prints_the_cases_json(name):
    out = subprocess.run(
        [sys.executable, "-m", "cockpit", "topo", str(CASES / f"{name}.txt"), "--json", "--detail"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    expected = _expected(name)
    assert _shape(json.loads(out.stdout), expected) == expected


def test_blank_cells_stay_blank_in_the_table():
    out = subprocess.run(
        [sys.executable, "-m", "cockpit", "topo", str(CASES / "blank-one-row-expanded.txt")],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    header = next(line for line in lines if "CPU Affinity" in line)
    gpu1 = next(line for line in lines if line.startswith("GPU1"))
    cpu, numa, gnid = (header.index(c) for c in ("CPU Affinity", "NUMA Affinity", "GPU NUMA ID"))
    assert gpu1[cpu:gnid].strip() == "" and gpu1[gnid:].strip() == "N/A", gpu1


def test_a_prefix_only_the_header_carries_is_not_stripped_from_rows():
    # a shell prompt before the header is not a block prefix: rows keep their labels
    text = "user@h:~$ \tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-3\nGPU1\tNV4\t X \t4-7\n"
    topo = parse_topology(text)
    assert topo.cpu_affinity == {"GPU0": "0-3", "GPU1": "4-7"}


def test_a_row_with_more_affinity_cells_than_the_header_names_is_reported():
    text = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-3\t0\nGPU1\tNV4\t X \t4-7\t1\n"
    topo = parse_topology(text)
    assert topo.cpu_affinity == {"GPU0": "0-3", "GPU1": "4-7"}
    assert any("more cell" in w for w in topo.warnings), topo.warnings
