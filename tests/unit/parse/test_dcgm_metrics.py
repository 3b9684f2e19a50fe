"""dcgm-exporter text -> GpuSample rows (fixtures made by us from dcgm-exporter's public format)."""

from __future__ import annotations

from pathlib import Path

from cockpit.parse.gpu.dcgm_metrics import dcgm_samples, is_dcgm
from cockpit.parse.metrics.prom_text import parse_exposition

DATA = Path(__file__).resolve().parents[2] / "data" / "metrics"


def samples(name: str, **kw):
    return dcgm_samples(parse_exposition((DATA / name).read_text()), **kw)


def test_each_gpu_becomes_one_sample():
    g0, g1 = samples("dcgm-exporter-a.txt", timestamp=5.0)
    assert (g0.index, g1.index) == (0, 1)
    assert g0.name == "NVIDIA H100 80GB HBM3" and g0.uuid.startswith("GPU-5f1c2a0e")
    assert (g0.power_w, g0.power_limit_w) == (612.5, 700.0)
    assert g0.power_fraction == 612.5 / 700.0
    assert (g1.util_gpu_pct, g1.util_mem_pct, g1.temp_c, g1.sm_clock_mhz) == (96, 41, 62, 1965)
    assert (g0.mem_used_mib, g0.mem_total_mib) == (77543, 77543 + 3012 + 604)
    assert (g0.pcie_replays, g1.pcie_replays) == (0, 3)  # a counter: the parser reads NAME_total
    assert g0.energy_mj == 9_876_543_210
    assert g0.host == "gpu-node-1" and g0.timestamp == 5.0


def test_the_session_host_name_wins_over_the_hostname_label():
    assert {g.host for g in samples("dcgm-exporter-a.txt", host="lxc-2")} == {"lxc-2"}


def test_a_field_not_exported_is_none_with_the_dcgm_name_to_add():
    g0 = samples("dcgm-exporter-defaults.txt")[0]
    assert g0.power_limit_w is None and g0.power_fraction is None
    assert "DCGM_FI_DEV_POWER_MGMT_LIMIT" in g0.notes["power_limit_w"]
    assert "power_w" not in g0.notes


def test_sglang_text_has_no_gpus():
    text = (DATA / "sglang-0.4-dp2-a.txt").read_text()
    assert dcgm_samples(parse_exposition(text)) == []
    assert not is_dcgm(parse_exposition(text))
    assert is_dcgm(parse_exposition((DATA / "dcgm-exporter-a.txt").read_text()))
