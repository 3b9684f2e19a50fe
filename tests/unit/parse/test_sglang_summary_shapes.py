"""The `parse-log` summary on every current decode-line shape (docs/sglang-log-format.md §3:
rank tags, speculative accept lengths, hybrid-pool usage, PD decode queues, graph labels,
forward iterations, dictConfig prefixes) and on a steady-state log, on both scan engines:
line counts and maxima known by construction, and equal to the event path."""

from __future__ import annotations

import io
import random

import pytest

from scan_engines import ENGINES, each_engine, folded_summary, scan_engine  # noqa: F401 (fixture)

from cockpit.parse import greater_than
from cockpit.parse.log import summary_hs as log_summary_hs
from cockpit.parse.log import summary_scan as log_summary_scan
from cockpit.parse.log.summary import Summary
from cockpit.parse.log.summary_scan import summarize_bytes, summarize_stream

# {r} running, {q} queue, {g} gen throughput; the other figures are fixed
DECODE_SHAPES = [
    "[2025-10-20 03:02:22 TP0] Decode batch. #running-req: {r}, #token: 8417, token usage: 0.04, "
    "gen throughput (token/s): {g}, #queue-req: {q}",
    "[2025-10-20 03:02:22 DP3 TP3] Decode batch. #running-req: {r}, #token: 8417, token usage: 0.04, "
    "accept len: 3.12, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}",
    "[2025-10-20 03:02:22 DP5 TP5 EP5] Decode batch. #running-req: {r}, #token: 8417, token usage: 0.04, "
    "accept len: 2.17, accept rate: 0.54, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}, ",
    "[2025-10-20 03:02:22.481 DP1 TP4 EP4] Decode batch. #running-req: {r}, #token: 0, token usage: 0.00, "
    "pre-allocated usage: 0.12, #retracted-req: 0, cuda graph: True, gen throughput (token/s): {g}, "
    "#queue-req: {q}, ",
    "[2025-10-20 03:02:22 TP0 EP0] Decode batch, #running-req: {r}, #full token: 9120, full token usage: 0.12, "
    "#swa token: 4410, swa token usage: 0.10, cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}",
    "[2025-10-20 03:02:22 PP1 TP0] Decode batch, #running-req: {r}, #full token: 9120, full token usage: 0.12, "
    "mamba num: 17, mamba usage: 0.31, accept len: 3.12, accept rate: 0.71, cuda graph: True, "
    "gen throughput (token/s): {g}, #queue-req: {q}, est. decode TFLOPS/s (per GPU): 412.7, "
    "est. read BW (GB/s per GPU): 3105.2, est. write BW (GB/s per GPU): 12.9",
    "[2025-10-20 03:02:22 DP2 TP2] Decode batch, #running-req: {r}, #token: 8417, token usage: 0.04, "
    "accept len: 3.12, accept rate: 0.71, cap len: 4.00, block accept len: 3.50, PD decode: pre-allocated "
    "usage: 0.02, #prealloc-req: 0, #transfer-req: 1, #retracted-req: 0, cuda graph: True, "
    "gen throughput (token/s): {g}, #queue-req: {q}",
    "[2025-10-20 03:02:22 TP0] Decode batch [1048576], #running-req: {r}, #token: 8417, token usage: 0.04, "
    "cuda graph: True, gen throughput (token/s): {g}, #queue-req: {q}",
    "[2025-10-20 03:02:22 TP0] Decode batch, #running-req: {r}, #full token: 9120, full token usage: 0.12, "
    "#gpu token: 100, gpu token usage: 0.01, #cpu token: 9020, cpu token usage: 0.30, npu graph: False, "
    "gen throughput (token/s): {g}, #queue-req: {q}",
    "2025-10-20 03:02:22 INFO 31223 [DP3 TP3 EP3 scheduler_metrics_mixin.py:222] Decode batch. "
    "#running-req: {r}, #token: 8417, token usage: 0.04, cuda graph: True, gen throughput (token/s): {g}, "
    "#queue-req: {q}, ",
    "[2025-10-20 03:02:22 TP0] Decode batch. #micro_batch_id: 1, #running-req: {r}, #token: 8417, "
    "token usage: 0.04, gen throughput (token/s): {g}, largest-len: 0, #queue-req: {q}, #cache_miss: 1",
]
PREFILL = ("[2025-10-20 03:02:22 DP0 TP0 EP0] Prefill batch, #new-seq: 2, #new-token: 8192, #cached-token: 0, "
           "full token usage: 0.12, swa token usage: 0.10, #running-req: {r}, #queue-req: {q}, "
           "#pending-token: 0, cuda graph: False, input throughput (token/s): {g}")
ACCESS = '[2025-10-20 03:02:22] INFO:     10.0.0.7:41234 - "POST /v1/chat/completions HTTP/1.1" 200 OK'


# Every test here runs on both engines of the byte scan (tests/scan_engines.py).
pytestmark = pytest.mark.usefixtures("each_engine")
events = folded_summary


def check(lines: list[str]) -> Summary:
    data = ("\n".join(lines) + "\n").encode()
    expected = events(data)
    assert summarize_bytes(data) == expected
    assert summarize_stream(io.BytesIO(data)) == expected
    return expected


def test_every_decode_shape_counts_and_reads_its_fields() -> None:
    for k, shape in enumerate(DECODE_SHAPES):
        # this shape holds the maxima; every other shape lower values around it
        others = [s.format(r=10 + j, q=j, g=f"{100 + j}.25") for j, s in enumerate(DECODE_SHAPES) if j != k]
        lines = others[:5] + [shape.format(r=300 + k, q=40 + k, g=f"{5000 + k}.75")] + others[5:]
        out = check(lines + [PREFILL.format(r=3, q=1, g="99999.0"), ACCESS])
        assert out["decode_lines"] == len(DECODE_SHAPES), shape
        assert out["prefill_lines"] == 1
        assert (out["max_running_req"], out["max_queue_req"], out["max_gen_throughput"]) == (
            300 + k, 40 + k, 5000.75 + k), shape
        assert out["last_gen_throughput"] == float(lines[-1].split("(token/s): ")[1].split(",")[0])


def test_decode_dominated_log_of_every_shape() -> None:
    rnd = random.Random(11)
    lines, top = [], (0, 0, 0.0)
    for _ in range(3000):
        roll = rnd.random()
        r, q, g = rnd.randrange(257), rnd.randrange(40), round(rnd.uniform(0, 5000), 2)
        if roll < 0.85:
            lines.append(rnd.choice(DECODE_SHAPES).format(r=r, q=q, g=f"{g:.2f}"))
            top = (max(top[0], r), max(top[1], q), max(top[2], g))
        elif roll < 0.91:
            lines.append(PREFILL.format(r=r, q=q, g=f"{g:.2f}"))
            top = (max(top[0], r), max(top[1], q), top[2])
        else:
            lines.append(ACCESS)
    out = check(lines)
    assert out["decode_lines"] == sum("Decode batch" in line for line in lines) > 2400
    assert (out["max_running_req"], out["max_queue_req"], out["max_gen_throughput"]) == top


@pytest.mark.parametrize("samples", [1, 256])
def test_steady_state_throughput(monkeypatch: pytest.MonkeyPatch, samples: int) -> None:
    """1234.56, 1234.61, 1234.58 ...: the one greater value is found wherever it is."""
    monkeypatch.setattr(log_summary_hs, "SAMPLES", samples)
    rnd = random.Random(5)
    level = 123456
    lines = []
    for _ in range(2000):
        level = min(123470, max(123440, level + rnd.randint(-5, 5)))
        lines.append(rnd.choice(DECODE_SHAPES).format(r=256, q=rnd.randrange(3), g=f"{level // 100}.{level % 100:02d}"))
    for at, peak in ((0, "1234.705"), (999, "1234.71"), (1999, "1234.7001")):
        bumped = lines[:at] + [DECODE_SHAPES[2].format(r=256, q=0, g=peak)] + lines[at + 1:]
        out = check(bumped)
        assert out["max_gen_throughput"] == float(peak) and out["max_running_req"] == 256
    assert check(lines)["max_gen_throughput"] == 1234.7


@pytest.mark.parametrize("best, greater, not_greater", [
    ("1234.56", ["1234.57", "1234.561", "1234.5601", "1235", "1235.0", "01234.6", "12340"],
     ["1234.56", "1234.560", "1234.55", "1234.5", "1234", "1234.", "999.99", "0.7"]),
    ("1234.70", ["1234.71", "1234.701", "1234.8"], ["1234.7", "1234.70", "1234.69", "1234.699"]),
    ("0.50", ["0.51", "0.5001", "1", "00.6"], ["0.5", "0.49", "0.05", "0"]),
    ("12", ["12.01", "12.1", "13"], ["12", "12.0", "12.00", "11.99"]),
    ("256", ["257", "0300", "1000"], ["256", "255", "0256", "99", "25"]),
])
def test_greater_than_prefixes_compare_every_digit(best: str, greater: list[str], not_greater: list[str]) -> None:
    """The Hyperscan prefixes report a number only if it is greater than the seed: a
    steady throughput (same integer part) yields no candidates below it."""
    import re

    is_float = "." in best or any("." in v for v in greater)
    rx = re.compile(b"L: " + greater_than.greater_prefixes(best.encode(), is_float))
    for value in greater:
        assert rx.match(f"L: {value},".encode()), value
    for value in not_greater:
        assert not rx.match(f"L: {value},".encode()), value


@pytest.mark.parametrize("density", [0.0, 1.0])  # every kind by its sre pass / every kind here
def test_line_counts_by_either_pass(monkeypatch: pytest.MonkeyPatch, density: float) -> None:
    """Markers glued on one line count once per kind; invalid markers not at all."""
    monkeypatch.setattr(log_summary_hs, "COUNT_DENSITY", density)
    dec, pre = DECODE_SHAPES[4], PREFILL
    lines = [
        dec.format(r=1, q=0, g="1.5") + " " + dec.format(r=2, q=0, g="2.5"),  # two decode markers
        pre.format(r=3, q=1, g="3.0") + pre.format(r=4, q=2, g="4.0") + dec.format(r=5, q=3, g="5.5"),
        "Prefill batch size 4 then Prefill batch [7], #running-req: 6, #queue-req: 9",
        "Prefill batch [x], #running-req: 70\nDecode batch [], #running-req: 71",
        "Decode batch. ", "Prefill batch,", ACCESS, "[TP0] Decode batch [12],",
    ]
    out = check(lines)
    assert (out["decode_lines"], out["prefill_lines"]) == (4, 3)
    assert (out["max_running_req"], out["max_queue_req"]) == (6, 9)


def test_prefill_server_log_counts_its_rare_decode_lines(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A PD prefill server: prefill lines only (decode lines sparse, counted by the
    Hyperscan pass), in forked slices sharing one compiled pass."""
    monkeypatch.setattr(log_summary_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(log_summary_scan, "_cpus", lambda: 3)
    rnd = random.Random(8)
    lines = [PREFILL.format(r=rnd.randrange(50), q=rnd.randrange(9), g="812.5") for _ in range(3000)]
    lines[2500] = DECODE_SHAPES[1].format(r=77, q=12, g="1.25")
    path = tmp_path / "prefill.log"
    path.write_bytes(("\n".join(lines) + "\n").encode())
    expected = events(path.read_bytes())
    with open(path, "rb") as f:
        assert summarize_stream(f) == expected
    assert expected["decode_lines"] == 1 and expected["prefill_lines"] == 2999
    assert (expected["max_running_req"], expected["max_gen_throughput"]) == (77, 1.25)


def test_slices_share_one_seed(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """Seeds sampled over the whole buffer: a slice whose values are all below the seed,
    or which has decode lines without a throughput, still merges to the exact maxima."""
    monkeypatch.setattr(log_summary_scan, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(log_summary_scan, "_cpus", lambda: 4)
    monkeypatch.setattr(log_summary_hs, "SAMPLES", 256)
    low = [DECODE_SHAPES[0].format(r=5, q=1, g="10.5")] * 800
    bare = ["[TP0] Decode batch. #running-req: 3, #queue-req: 0"] * 800
    high = [DECODE_SHAPES[5].format(r=200 + i % 7, q=20 + i % 5, g=f"{900 + i % 50}.{i % 10}") for i in range(800)]
    for order in ((low, bare, high), (high, low, bare), (bare, high, low)):
        path = tmp_path / "s.log"
        path.write_bytes(("\n".join(sum(order, [])) + "\n").encode())
        expected = events(path.read_bytes())
        with open(path, "rb") as f:
            assert summarize_stream(f) == expected
        assert (expected["max_running_req"], expected["max_queue_req"], expected["max_gen_throughput"]) == (
            206, 24, 949.9)
