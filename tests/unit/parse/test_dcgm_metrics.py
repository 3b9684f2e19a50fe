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


def test_figures_missing_for_one_reason_are_one_footnote_with_every_name_to_add():
    """The sandbox's exporter carries power only: the GPU pane said five lines for it (util,
    memory twice, temp, SM clock), filling an 80x24 pane; one reason on one GPU is one line."""
    from cockpit.ui.render.gpu_notes import missing_reasons

    text = ('DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-1",modelName="STAND-IN GPU"} 110\n'
            'DCGM_FI_DEV_POWER_MGMT_LIMIT{gpu="0",UUID="GPU-1",modelName="STAND-IN GPU"} 700\n')
    (g0,) = dcgm_samples(parse_exposition(text))
    lines = [line for line in missing_reasons([g0]) if "dcgm-exporter" in line]
    assert len(lines) == 1, lines
    (line,) = lines
    assert line.startswith("util, memory, temp, SM clock") and line.endswith(" on GPU 0"), line
    for name in ("DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_TEMP", "DCGM_FI_DEV_SM_CLOCK"):
        assert name in line
    # two GPUs missing different sets keep a line per set
    (a,) = dcgm_samples(parse_exposition(text))
    b = dcgm_samples(parse_exposition(text.replace('gpu="0"', 'gpu="1"')
                                      + 'DCGM_FI_DEV_GPU_TEMP{gpu="1",UUID="GPU-2"} 50\n'))[0]
    two = [line for line in missing_reasons([a, b]) if "dcgm-exporter" in line]
    assert any(line.startswith("util, memory, SM clock") and line.endswith("on both GPUs") for line in two), two
    assert any(line.startswith("temp:") and line.endswith("on GPU 0") for line in two), two
