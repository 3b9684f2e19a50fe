"""Derive the topology cases in this folder from public `nvidia-smi topo -m` pastes.

Run from the repo root: `python tests/data/topo/make_cases.py`.
Each case is a real paste from tests/data/corpus/nvidia-smi (its source URL is in
index.tsv) changed the way a real host or a real paste changes it: affinity cells left
blank by the driver (VMs and containers where the cpuset or NUMA node is unknown), a
header wrapped by a terminal or a text box, every line stamped by a container log.
The expected JSON is the source's own expected JSON with the same change made by hand
(blank cells -> null), never the parser's output.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
SRC = HERE.parent / "corpus" / "nvidia-smi"


def src(name: str) -> str:
    return (SRC / name).read_text(encoding="utf-8")


def expect(name: str) -> dict:
    return json.loads((SRC / name).with_suffix(".expect.json").read_text())


def blank_tail(text: str, gpus: dict[str, str]) -> str:
    """Replace each listed GPU row's affinity tail (tab form) by the given tab text."""
    out = []
    for line in text.split("\n"):
        label = line.split("\t", 1)[0]
        if label in gpus:
            cells = line.split("\t")
            # label + one cell per GPU/NIC column, then the driver's affinity tail
            ncols = len(re.findall(r"(?:GPU|NIC)\d+", text.split("\n", 1)[0].split("CPU")[0]))
            line = "\t".join(cells[: 1 + ncols]) + "\t" + gpus[label]
        out.append(line)
    return "\n".join(out)


def write(name: str, text: str, expected: dict) -> None:
    # every source here prints GPU NUMA ID N/A on each GPU row; blank cases set their own
    expected.setdefault("gpu_numa_id", {g: "N/A" for g in expected["cpu_affinity"]})
    (HERE / f"{name}.txt").write_text(text, encoding="utf-8")
    (HERE / f"{name}.expect.json").write_text(json.dumps(expected, indent=1) + "\n")


def expand(text: str) -> str:
    """What a paste that turned tabs into spaces (GitHub, most terminals) gives."""
    return "\n".join(line.expandtabs(8) for line in text.split("\n"))


def main(out: Path = HERE) -> None:
    global HERE
    HERE = out
    # 1. a VM whose driver cannot read the cpuset: CPU Affinity blank, NUMA Affinity kept
    #    (R5xx prints `cpu<TAB>numa<TAB><TAB>id`, so an empty cpulist leaves two tabs).
    t = blank_tail(src("039.txt"), {"GPU0": "\t0\t\tN/A", "GPU2": "\t1\t\tN/A", "GPU4": "\t1\t\tN/A"})
    e = expect("039.txt")
    for g in ("GPU0", "GPU2", "GPU4"):
        e["cpu_affinity"][g] = None
    e["gpu_numa_id"] = {g: "N/A" for g in e["cpu_affinity"]}
    write("blank-cpu-tabs", t, e)

    # 2. the same blanks on every row, tabs expanded by the paste (GitHub's rendering)
    t = blank_tail(src("014.txt"), {f"GPU{i}": "\t" + ("1" if i > 2 else "0") + "\t\tN/A" for i in range(5)})
    e = expect("014.txt")
    e["cpu_affinity"] = {f"GPU{i}": None for i in range(5)}
    e["numa_affinity"] = {f"GPU{i}": "1" if i > 2 else "0" for i in range(5)}
    e["gpu_numa_id"] = {f"GPU{i}": "N/A" for i in range(5)}
    write("blank-cpu-expanded", expand(t), e)

    # 3. neither CPU nor NUMA affinity known, GPU NUMA ID N/A: `<TAB><TAB><TAB>N/A`
    t = blank_tail(src("014.txt"), {f"GPU{i}": "\t\t\tN/A" for i in range(5)})
    e = expect("014.txt")
    e["cpu_affinity"] = {f"GPU{i}": None for i in range(5)}
    e["numa_affinity"] = {f"GPU{i}": None for i in range(5)}
    e["gpu_numa_id"] = {f"GPU{i}": "N/A" for i in range(5)}
    write("blank-cpu-and-numa-tabs", t, e)
    write("blank-cpu-and-numa-expanded", expand(t), e)

    # 4. one GPU of two with both cells blank, beside a full row (spaces, 061)
    t = src("061.txt").replace("GPU1    NV12     X      SYS     40-79   1               N/A",
                               "GPU1    NV12     X      SYS                             N/A")
    e = expect("061.txt")
    e["cpu_affinity"]["GPU1"] = None
    e["numa_affinity"]["GPU1"] = None
    e["gpu_numa_id"] = {"GPU0": "N/A", "GPU1": "N/A"}
    write("blank-one-row-expanded", t, e)

    # 4b. a driver that pads each cell out to its header label (037, R535.86: `0-127<TAB>
    #     <TAB>N/A`): a blank cpulist is padded too, so NUMA stays under its label
    t = blank_tail(src("037.txt"), {"GPU1": "\t\tN/A\t\tN/A", "GPU3": "\t\t\t\tN/A"})
    e = expect("037.txt")
    e["cpu_affinity"]["GPU1"] = e["cpu_affinity"]["GPU3"] = None
    e["numa_affinity"]["GPU3"] = None
    write("blank-cells-padded-tabs", t, e)

    # 5. a header a terminal 110 columns wide broke mid-word (rows are narrower)
    lines = src("001.txt").split("\n")
    lines[0:1] = [lines[0][:110], lines[0][110:]]
    write("wrapped-header-terminal", "\n".join(lines), expect("001.txt"))

    # 6. a header a text box word-wrapped before "Affinity", dropping the space
    lines = src("060.txt").split("\n")
    cut = lines[0].index("NUMA Affinity") + len("NUMA")
    lines[0:1] = [lines[0][:cut], lines[0][cut + 1 :]]
    write("wrapped-header-paste", "\n".join(lines), expect("060.txt"))

    # 7. a container log: every line stamped, the milliseconds ticking
    stamped = []
    for k, line in enumerate(src("056.txt").rstrip("\n").split("\n")):
        stamp = f"INFO 2025-04-06T03:02:45.{843 + k // 9:03d}Z "
        stamped.append(stamp + line if line else stamp.rstrip())
    write("container-log-prefix", "\n".join(stamped) + "\n", expect("056.txt"))

    # 8. docker compose's service prefix on every line (spaces, 061)
    prefixed = ["sglang-1  | " + line for line in src("061.txt").rstrip("\n").split("\n")]
    write("compose-prefix", "\n".join(prefixed) + "\n", expect("061.txt"))


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
