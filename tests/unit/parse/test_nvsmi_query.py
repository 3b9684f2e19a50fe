"""nvidia-smi `--query-gpu` CSV and the default table -> GpuSample."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from cockpit.parse.gpu.nvsmi_query import (
    QUERY_FIELDS,
    QueryLineError,
    QueryStreamParser,
    header_fields,
    looks_like_table,
    parse_nvsmi_table,
    parse_query_csv,
    parse_query_line,
    query_command,
    summarize,
)
from cockpit.parse.gpu.sample import GpuSample, decode_clock_event_reasons
from cockpit.sources.gpu.nvsmi_stream import swap_rejected_field

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "nvidia-smi"


def _rows(*kinds: str) -> list[dict[str, str]]:
    with open(CORPUS / "index.tsv", newline="") as fh:
        return [row for row in csv.DictReader(fh, delimiter="\t") if row["kind"] in kinds]


TABLE_AND_QUERY = _rows("table", "query")


def test_the_corpus_has_tables_and_query_output():
    kinds = {r["kind"] for r in TABLE_AND_QUERY}
    assert kinds == {"table", "query"}


@pytest.mark.parametrize("row", TABLE_AND_QUERY, ids=lambda r: r["file"])
def test_every_table_and_query_paste_gives_its_expected_summary(row):
    path = CORPUS / row["file"]
    text = path.read_text(encoding="utf-8")
    if row["kind"] == "table":
        assert looks_like_table(text)
        samples = parse_nvsmi_table(text)
    else:  # the field list is recorded in the index's notes
        fields = re.search(r"--query-gpu=(\S+)", row["notes"]).group(1).split(",")
        samples = parse_query_csv(text, fields)
    assert summarize(samples) == json.loads(path.with_suffix(".expect.json").read_text())


LINE = (
    "2024/05/01 12:00:00.123, 3, NVIDIA H100 80GB HBM3, GPU-4f1c, 330.52, 700.00, 87, 41, "
    "71234, 81559, 64, 1980, 1980, 5, 5, 16, 16, 0x0000000000000004"
)


def test_a_full_stream_line_fills_every_field():
    s = parse_query_line(LINE, host="h1")
    assert s.index == 3 and s.name == "NVIDIA H100 80GB HBM3" and s.uuid == "GPU-4f1c"
    assert (s.power_w, s.power_limit_w) == (330.52, 700.0)
    assert (s.util_gpu_pct, s.util_mem_pct, s.mem_used_mib, s.mem_total_mib) == (87, 41, 71234, 81559)
    assert (s.temp_c, s.sm_clock_mhz, s.sm_clock_max_mhz) == (64, 1980, 1980)
    assert (s.pcie_gen, s.pcie_gen_max, s.pcie_width, s.pcie_width_max) == (5, 5, 16, 16)
    assert s.throttle_reasons == ("sw_power_cap",)
    assert s.host == "h1" and s.timestamp is not None and dict(s.notes) == {}
    assert s.power_fraction == pytest.approx(330.52 / 700)


@pytest.mark.parametrize("raw", ["[N/A]", "[Not Supported]", "N/A", "[Unknown Error]", "[Insufficient Permissions]", ""])
def test_unreadable_values_become_none_with_the_raw_text_as_note(raw):
    cells = [c.strip() for c in LINE.split(",")]
    for at in (4, 5, 8, 9, 17):  # power, limit, memory used/total, throttle
        cells[at] = raw
    s = parse_query_line(", ".join(cells))
    assert s.power_w is None and s.power_limit_w is None
    assert s.mem_used_mib is None and s.mem_total_mib is None
    assert s.throttle_reasons == ()
    why = raw or "(empty)"
    assert s.notes == {"power_w": why, "power_limit_w": why, "mem_used_mib": why, "mem_total_mib": why, "throttle_reasons": why}
    assert s.power_fraction is None


def test_a_missing_name_is_none_with_a_note():
    s = parse_query_line("0, [Unknown Error], 12.5", ["index", "name", "power.draw"])
    assert s.name is None and s.notes["name"] == "[Unknown Error]" and s.power_w == 12.5


def test_units_are_stripped_when_nounits_was_not_given():
    fields = ["index", "power.draw", "memory.used", "utilization.gpu", "clocks.sm"]
    s = parse_query_line("0, 120.50 W, 8000 MiB, 50 %, 1410 MHz", fields)
    assert (s.power_w, s.mem_used_mib, s.util_gpu_pct, s.sm_clock_mhz) == (120.5, 8000, 50, 1410)


def test_a_header_line_sets_the_fields_and_drops_units():
    text = "index, name, power.draw [W], enforced.power.limit [W]\n0, NVIDIA A40, 61.00 W, 300.00 W\n"
    assert header_fields(text.splitlines()[0]) == ("index", "name", "power.draw", "enforced.power.limit")
    (s,) = parse_query_csv(text)
    assert (s.name, s.power_w, s.power_limit_w) == ("NVIDIA A40", 61.0, 300.0)


def test_a_name_with_a_comma_is_glued_back():
    s = parse_query_line("0, Weird, Name, 10", ["index", "name", "power.draw"])
    assert s.name == "Weird, Name" and s.power_w == 10


@pytest.mark.parametrize("line", [
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    'Field "bogus" is not a valid field to query.',
    "No devices were found",
    "2024/05/01 12:00:00.123, 3, NVIDIA H1",
])
def test_lines_that_are_not_samples_raise_query_line_error(line):
    with pytest.raises(QueryLineError):
        parse_query_line(line)


def _stream(ticks: int, gpus: int, *, start: float = 0.0) -> list[str]:
    out = []
    for t in range(ticks):
        for i in range(gpus):
            cells = [c.strip() for c in LINE.split(",")]
            cells[0] = f"2024/05/01 12:00:{t:02d}.000"
            cells[1] = str(i)
            cells[4] = f"{100 + 10 * i + t:.2f}"
            out.append(", ".join(cells))
    return out


def test_the_stream_parser_groups_lines_into_ticks():
    parser = QueryStreamParser(host="h", clock=lambda: 42.0)
    batches = [b for line in _stream(3, 4) if (b := parser.feed_line(line))]
    # the first tick ends when index 0 repeats; after that the GPU count is known
    assert [len(b) for b in batches] == [4, 4, 4]
    assert [s.index for s in batches[0]] == [0, 1, 2, 3]
    assert batches[2][3].power_w == 100 + 30 + 2
    assert all(s.timestamp == 42.0 and s.host == "h" for b in batches for s in b)
    assert parser.flush() == []


def test_the_stream_parser_takes_chunks_cut_mid_line_and_flushes_the_rest():
    text = "\n".join(_stream(2, 2)) + "\n" + _stream(1, 1)[0]  # last line unterminated
    parser = QueryStreamParser(clock=None)
    batches = []
    for k in range(0, len(text), 7):
        batches += parser.feed(text[k : k + 7])
    batches += parser.flush()
    assert [len(b) for b in batches] == [2, 2, 1]


def test_the_stream_parser_keeps_error_lines_aside():
    parser = QueryStreamParser(clock=None)
    assert parser.feed_line('Field "clocks_throttle_reasons.active" is not a valid field to query.') is None
    assert parser.errors == ['Field "clocks_throttle_reasons.active" is not a valid field to query.']


def test_a_rejected_field_is_swapped_for_its_new_name_or_dropped():
    msg = 'Field "clocks_throttle_reasons.active" is not a valid field to query.'
    swapped = swap_rejected_field(QUERY_FIELDS, msg)
    assert swapped is not None
    assert swapped[-1] == "clocks_event_reasons.active" and len(swapped) == len(QUERY_FIELDS)
    dropped = swap_rejected_field(("index", "clocks.max.sm_clock"), 'Field "clocks.max.sm_clock" is not a valid field to query.')
    assert dropped == ("index",)
    assert swap_rejected_field(QUERY_FIELDS, "all good") is None


def test_the_query_command_names_every_field_once():
    cmd = query_command(500)
    assert cmd.endswith("--format=csv,noheader,nounits -lms 500")
    assert cmd.split("--query-gpu=")[1].split(" ")[0].split(",") == list(QUERY_FIELDS)
    assert len(set(QUERY_FIELDS)) == len(QUERY_FIELDS)


def test_table_power_shown_as_na_is_none_with_a_note():
    text = (CORPUS / "034.txt").read_text().replace("61W / 300W", " N/A /  300W", 1)
    s = parse_nvsmi_table(text)[0]
    assert s.power_w is None and s.notes["power_w"] == "N/A" and s.power_limit_w == 300.0


def test_samples_round_trip_through_json():
    s = parse_query_line(LINE.replace("0x0000000000000004", "0x00000000000000C4"), host="h")
    assert s.throttle_reasons == ("sw_power_cap", "hw_thermal_slowdown", "hw_power_brake_slowdown")
    data = json.loads(json.dumps(s.to_json()))
    assert GpuSample.from_json(data) == s
    assert decode_clock_event_reasons(0) == ()


async def test_a_recorded_stream_replays_through_the_same_parser():
    from cockpit.sources.gpu.nvsmi_stream import parse_lines, replay_lines

    recorded = _stream(3, 4)
    events = [e async for e in parse_lines(replay_lines(recorded, interval_s=0), host="demo", clock=lambda: 7.0)]
    assert [len(e.samples) for e in events] == [4, 4, 4]
    assert all(e.host == "demo" and e.taken_at == 7.0 for e in events)
    assert [s.power_w for s in events[2].samples] == [102.0, 112.0, 122.0, 132.0]
