"""Topology rules: numa_split (a TP group across sockets), comm_bound (TP over PCIe only,
with the GPUs drawing little power: the seed's chain from idle SMs to NCCL ring allreduce)."""

from __future__ import annotations

from cockpit.live.diagnosis.findings import Evidence, Finding, clamp
from cockpit.live.diagnosis.gpu_stats import gpu_list
from cockpit.live.diagnosis.inputs import DiagnosisInputs
from cockpit.live.diagnosis.rules_gpu import power_evidence
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix, distance_class

# TP over PCIe with the GPUs starved (power_starved's readings, under its STARVED_SHARE): waiting on
# transfers. The confidence is 0.55 at this share and grows the further under it the GPUs draw.
COMM_SHARE = 0.7


def tp_group(inputs: DiagnosisInputs) -> list[str] | None:
    """The GPUs of the first TP group, when tp is known: those the launch names (visible devices
    from its base GPU id), else the first tp_size GPUs (CUDA order)."""
    topo, tp = inputs.topology, inputs.tp_size
    if topo is None or tp is None or tp < 2 or len(topo.gpus) < tp:
        return None
    if inputs.tp_gpus is not None:
        names = [f"GPU{i}" for i in inputs.tp_gpus]
        return names if all(n in topo.gpus for n in names) else None
    return list(topo.gpus[:tp])


def _pairs(topo: TopologyMatrix, group: list[str]) -> list[tuple[str, str, str]]:
    out = []
    for i, a in enumerate(group):
        for b in group[i + 1:]:
            cell = topo.link(a, b)
            if cell is not None:
                out.append((a, b, distance_class(cell)))
    return out


def _index(name: str) -> int:
    return int(name.removeprefix("GPU")) if name.removeprefix("GPU").isdigit() else -1


def numa_split(inputs: DiagnosisInputs) -> list[Finding]:
    group = tp_group(inputs)
    if group is None or inputs.topology is None:
        return []
    topo = inputs.topology
    pairs = _pairs(topo, group)
    sys_pairs = [(a, b) for a, b, cls in pairs if cls == "SYS"]
    if not sys_pairs or any(cls == "NV#" for *_, cls in pairs):
        return []  # an NVLinked group moves its allreduce over NVLink, not the socket link
    nodes = sorted({n for g in group if (n := (topo.numa_affinity or {}).get(g)) not in (None, "N/A")})
    said = f" on NUMA nodes {', '.join(nodes)}" if len(nodes) > 1 else ""
    evidence = (Evidence(f"TP{len(group)} over GPUs {gpu_list(_index(g) for g in group)}{said}: "
                         f"{len(sys_pairs)} of {len(pairs)} GPU pairs cross the socket link (SYS), e.g. "
                         f"{sys_pairs[0][0]}-{sys_pairs[0][1]}", "topology",
                         gpus=tuple(_index(g) for g in group)),)
    half = len(group) // 2
    return [Finding(
        "numa_split", f"The TP{len(group)} group spans CPU sockets: allreduce crosses the SYS link",
        evidence, clamp(0.35 + 0.4 * len(sys_pairs) / max(1, len(pairs))),
        f"compare TP{half} x DP2 (or PP2) kept inside one socket against TP{len(group)}",
        f"numa_split:tp{len(group)}:{gpu_list(_index(g) for g in group)}:{len(sys_pairs)}sys",
        flags={"--tp": str(half), "--dp": "2"} if half >= 1 else {},
        search_space={"--tp x --dp": [f"{len(group)}x1", f"{half}x2"]})]


def comm_bound(inputs: DiagnosisInputs) -> list[Finding]:
    group = tp_group(inputs)
    if group is None or inputs.topology is None:
        return []
    pairs = _pairs(inputs.topology, group)
    if not pairs or any(cls == "NV#" for *_, cls in pairs):
        return []
    power, share, keys = power_evidence(inputs)
    if share is None:  # power_evidence gives a share only for starved GPUs or runs
        return []
    classes = sorted({cls for *_, cls in pairs})
    chain = [Evidence(f"TP{len(group)} over PCIe only ({', '.join(classes)} between GPUs "
                      f"{gpu_list(_index(g) for g in group)}, no NVLink)", "topology",
                      gpus=tuple(_index(g) for g in group))]
    if len(group) > 2:
        chain.append(Evidence("SGLang's custom allreduce is off for more than 2 PCIe GPUs: allreduce "
                              "falls through to NCCL's ring over PCIe", "topology"))
    return [Finding(
        "comm_bound", f"Tensor parallelism over PCIe only: the GPUs wait on allreduce ({share:.0%} of their "
        "power limit)", tuple(chain + power), clamp(0.55 + (COMM_SHARE - share)),
        f"try fewer GPUs per allreduce: TP{max(1, len(group) // 2)} x DP2 or PP2, or expert parallelism for MoE "
        "(candidate profile), and compare tok/s and power",
        f"comm_bound:tp{len(group)}:{gpu_list(_index(g) for g in group)}:" + ",".join(keys),
        flags={"--tp": str(max(1, len(group) // 2)), "--dp": "2", "--enable-dp-attention": ""},
        search_space={"--tp x --dp": [f"{len(group)}x1", f"{len(group) // 2}x2"],
                      "--moe-a2a-backend": ["none", "deepep"]})]
