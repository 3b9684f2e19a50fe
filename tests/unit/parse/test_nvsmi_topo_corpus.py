"""`nvidia-smi topo -m` as pasted from real hosts -> TopologyMatrix, pinned by the corpus."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.parse.gpu.nvsmi_topo import (
    TopologyParseError,
    distance_class,
    distance_rank,
    nvlink_count,
    parse_topology,
)

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "nvidia-smi"
REPO = Path(__file__).resolve().parents[3]


def _files(kind: str) -> list[str]:
    with open(CORPUS / "index.tsv", newline="") as fh:
        return [row["file"] for row in csv.DictReader(fh, delimiter="\t") if row["kind"] == kind]


TOPO_FILES = _files("topo")


def test_the_corpus_is_there_and_has_topo_files():
    assert len(TOPO_FILES) >= 30, f"corpus missing or cut: {CORPUS}"


@pytest.mark.parametrize("name", TOPO_FILES)
def test_every_topo_paste_parses_to_its_expected_json(name):
    text = (CORPUS / name).read_text(encoding="utf-8")
    expected = json.loads((CORPUS / name).with_suffix(".expect.json").read_text())
    topo = parse_topology(text)
    assert topo.to_json() == expected
    assert topo.warnings == (), topo.warnings


def test_the_topo_command_prints_the_same_json_from_a_file():
    name = "006.txt"  # tabs, glued header (NIC8NIC9) and glued cells (NODENODE)
    out = subprocess.run(
        [sys.executable, "-m", "cockpit", "topo", str(CORPUS / name), "--json"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == json.loads((CORPUS / name).with_suffix(".expect.json").read_text())


def test_the_topo_command_renders_a_table_and_the_legend_in_use():
    out = subprocess.run(
        [sys.executable, "-m", "cockpit", "topo", str(CORPUS / "016.txt")],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 0, out.stderr
    assert "GPU0  X     NV6" in out.stdout
    assert "NIC0=mlx5_0" in out.stdout
    assert "NV#  = Connection traversing a bonded set of # NVLinks" in out.stdout


def test_a_missing_file_is_one_clear_error():
    out = subprocess.run(
        [sys.executable, "-m", "cockpit", "topo", "no/such/topo.txt"],
        capture_output=True, text=True, cwd=REPO, timeout=60,
    )
    assert out.returncode == 1
    assert out.stderr.strip() == "cockpit: no/such/topo.txt: no such file"


def test_nic_legend_gpu_numa_ids_and_nic_links_are_kept_in_the_detail():
    topo = parse_topology((CORPUS / "032.txt").read_text())
    detail = topo.to_json(detail=True)
    assert detail["nic_names"] == {"NIC0": "mlx5_0", "NIC1": "mlx5_1", "NIC2": "mlx5_4", "NIC3": "mlx5_5"}
    assert detail["gpu_numa_id"] == {"GPU0": "2", "GPU1": "10", "GPU2": "18", "GPU3": "26"}
    assert detail["nic_links"]["GPU2"] == {"NIC0": "SYS", "NIC1": "SYS", "NIC2": "NODE", "NIC3": "NODE"}
    assert topo.classes_present() == ("NV#",)


def test_old_drivers_without_numa_columns_give_null_columns():
    text = "\tGPU0\tGPU1\tmlx4_0\tCPU Affinity\nGPU0\t X \tPIX\tPHB\t0-11\nGPU1\tPIX\t X \tPHB\t0-11\nmlx4_0\tPHB\tPHB\t X \n"
    topo = parse_topology(text)
    assert topo.to_json() == {
        "gpus": 2, "nics": 1,
        "matrix": {"GPU0": {"GPU1": "PIX"}, "GPU1": {"GPU0": "PIX"}},
        "cpu_affinity": {"GPU0": "0-11", "GPU1": "0-11"},
        "numa_affinity": None,
    }


def test_a_blank_cpu_affinity_cell_is_null_with_tabs():
    text = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\nGPU0\t X \tSYS\t\t0\t\tN/A\nGPU1\tSYS\t X \t\t1\t\tN/A\n"
    topo = parse_topology(text)
    assert topo.cpu_affinity == {"GPU0": None, "GPU1": None}
    assert topo.numa_affinity == {"GPU0": "0", "GPU1": "1"}


@pytest.mark.parametrize("indent", ["        ", ""], ids=["as-printed", "collect_env-stripped"])
def test_a_blank_cpu_affinity_cell_is_null_with_tab_expanded_spaces(indent):
    text = (
        f"{indent}GPU0    GPU1    CPU Affinity    NUMA Affinity   GPU NUMA ID\n"
        "GPU0     X      NV4                     0               N/A\n"
        "GPU1    NV4      X      4,6,9,15,17     0               N/A\n"
    )
    topo = parse_topology(text)
    assert topo.cpu_affinity == {"GPU0": None, "GPU1": "4,6,9,15,17"}
    assert topo.numa_affinity == {"GPU0": "0", "GPU1": "0"}
    assert topo.gpu_numa_id == {"GPU0": "N/A", "GPU1": "N/A"}


def test_glued_cells_escapes_as_replacement_chars_and_a_shell_prompt_are_undone():
    text = (
        "user@h:~$ \ufffd[4m        GPU0    GPU1    NIC0NIC1    CPU Affinity    NUMA Affinity   GPU NUMA ID\ufffd[0m\r\n"
        "GPU0     X      SYSPIX NODE     0-3     0N/A\r\n"
        "GPU1    SYS      X      SYSSYS  4-7     1               N/A\r\n"
        "NIC0  PIX SYS X PIX\nNIC1 NODE SYS PIX X\n"
    )
    topo = parse_topology(text)
    assert topo.gpus == ("GPU0", "GPU1") and topo.nics == ("NIC0", "NIC1")
    assert topo.matrix == {"GPU0": {"GPU1": "SYS"}, "GPU1": {"GPU0": "SYS"}}
    assert topo.nic_links["GPU0"] == {"NIC0": "PIX", "NIC1": "NODE"}
    assert topo.numa_affinity == {"GPU0": "0", "GPU1": "1"}
    assert topo.gpu_numa_id == {"GPU0": "N/A", "GPU1": "N/A"}


def test_an_asymmetric_matrix_is_reported_not_guessed():
    text = "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-3\nGPU1\tPIX\t X \t0-3\n"
    topo = parse_topology(text)
    assert topo.matrix == {"GPU0": {"GPU1": "NV4"}, "GPU1": {"GPU0": "PIX"}}
    assert any("asymmetric" in w for w in topo.warnings)


def test_text_without_a_matrix_is_a_parse_error():
    with pytest.raises(TopologyParseError):
        parse_topology("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n")


def test_distance_classes_rank_nearest_first():
    assert distance_class("NV18") == "NV#" and nvlink_count("NV18") == 18
    assert distance_class("SOC") == "SYS" and nvlink_count("PIX") is None
    ranks = [distance_rank(c) for c in ("X", "NV2", "PIX", "PXB", "PHB", "NODE", "SYS")]
    assert ranks == sorted(ranks) == list(range(7))
