"""`nvidia-smi` text -> `GpuSample`: the `--query-gpu` CSV (one line per GPU per tick,
as streamed by `-lms N`) and, as a fallback, the default human table.

Anything that is not a number after stripping units (`[N/A]`, `[Not Supported]`, bare
`N/A`, `[Unknown Error]`, `[Insufficient Permissions]`, ...) becomes None and the raw
text goes into `GpuSample.notes`; a malformed line raises `QueryLineError`, never
anything else.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from cockpit.parse.gpu.sample import GpuSample, decode_clock_event_reasons, figure_problem, index_problem
from cockpit.parse.numbers import read_float, read_int

# The exact field list of the remote stream, in order. `timestamp` first and `index`
# second so lines can be grouped into ticks; `clocks_throttle_reasons.active` is the
# name every driver knows (R535+ also accept `clocks_event_reasons.active`).
QUERY_FIELDS: tuple[str, ...] = (
    "timestamp",
    "index",
    "name",
    "uuid",
    "power.draw",
    "enforced.power.limit",
    "utilization.gpu",
    "utilization.memory",
    "memory.used",
    "memory.total",
    "temperature.gpu",
    "clocks.sm",
    "clocks.max.sm",
    "pcie.link.gen.current",
    "pcie.link.gen.max",
    "pcie.link.width.current",
    "pcie.link.width.max",
    "clocks_throttle_reasons.active",
)

# A field a driver rejects ("is not a valid field to query") is swapped for its
# alternative name, or dropped when it has none.
FIELD_ALTERNATIVES: dict[str, str] = {
    "clocks_throttle_reasons.active": "clocks_event_reasons.active",
    "enforced.power.limit": "power.limit",
    "clocks.sm": "clocks.current.sm",
    "clocks.max.sm": "clocks.max.sm_clock",
}

# The seconds a power column averages over (GpuSample.power_window_s): `power.draw` is either,
# by driver and architecture, so it is not said.
POWER_WINDOW_S: dict[str, float] = {"power.draw.average": 1.0, "power.draw.instant": 0.0}

# `--query-gpu` name -> GpuSample attribute. Several names (aliases, newer drivers)
# may feed one attribute; the first present in the field list wins.
FIELD_TO_ATTR: dict[str, str] = {
    "index": "index",
    "name": "name",
    "uuid": "uuid",
    "power.draw": "power_w",
    "power.draw.average": "power_w",
    "power.draw.instant": "power_w",
    "enforced.power.limit": "power_limit_w",
    "power.limit": "power_limit_w",
    "utilization.gpu": "util_gpu_pct",
    "utilization.memory": "util_mem_pct",
    "memory.used": "mem_used_mib",
    "memory.total": "mem_total_mib",
    "temperature.gpu": "temp_c",
    "clocks.sm": "sm_clock_mhz",
    "clocks.current.sm": "sm_clock_mhz",
    "clocks.max.sm": "sm_clock_max_mhz",
    "clocks.max.sm_clock": "sm_clock_max_mhz",
    "pcie.link.gen.current": "pcie_gen",
    "pcie.link.gen.gpucurrent": "pcie_gen",
    "pcie.link.gen.max": "pcie_gen_max",
    "pcie.link.gen.gpumax": "pcie_gen_max",
    "pcie.link.width.current": "pcie_width",
    "pcie.link.width.max": "pcie_width_max",
    "clocks_throttle_reasons.active": "throttle_reasons",
    "clocks_event_reasons.active": "throttle_reasons",
}

_STRING_ATTRS = frozenset({"name", "uuid"})
_NUMBER = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*(?:W|MiB|%|MHz|C|KB/s|mJ|J)?$")
_HEADER_UNIT = re.compile(r"\s*\[[^\]]*\]\s*$")
_TIMESTAMP_FORMATS = ("%Y/%m/%d %H:%M:%S.%f", "%Y/%m/%d %H:%M:%S", "%a %b %d %H:%M:%S %Y")


class QueryLineError(ValueError):
    """A line that is not a sample: nvidia-smi's error text, a cut line, garbage."""


def query_command(interval_ms: int | None = None, fields: Sequence[str] = QUERY_FIELDS) -> str:
    """The nvidia-smi command line for `fields`, looping every `interval_ms` if given."""
    cmd = f"nvidia-smi --query-gpu={','.join(fields)} --format=csv,noheader,nounits"
    return cmd if interval_ms is None else f"{cmd} -lms {int(interval_ms)}"


def parse_value(raw: str) -> tuple[float | int | None, str | None]:
    """A CSV cell -> (number, None), or (None, raw text) when it is not a number."""
    text = raw.strip()
    if text.isdigit():
        number: float | int | None = read_int(text)
    elif text[:1].isdigit() or text[:1] in "+-":
        number = read_float(text)  # None for a unit suffix (`120.50 W`), read below
        if number is None and (m := _NUMBER.match(text)) is not None:
            number = read_float(m.group(1)) if "." in m.group(1) else read_int(m.group(1))
    else:
        m = _NUMBER.match(text)
        number = None if m is None else read_float(m.group(1)) if "." in m.group(1) else read_int(m.group(1))
    if number is None:
        return None, (text[:40] + "..." if len(text) > 40 else text) or "(empty)"
    return number, None  # inf from 1e999 included: the field's range refuses it (figure_problem)


def parse_timestamp(raw: str) -> float | None:
    """nvidia-smi's `timestamp` (`2024/01/15 10:23:45.123`, local time) -> epoch s."""
    text = raw.strip()
    for fmt in _TIMESTAMP_FORMATS:
        try:
            return datetime.strptime(text, fmt).timestamp()
        except ValueError:
            continue
    return None


def header_fields(line: str) -> tuple[str, ...] | None:
    """Field names of a CSV header line (`power.draw [W]` -> `power.draw`), else None."""
    parts = [_HEADER_UNIT.sub("", p.strip()) for p in line.split(",")]
    if parts and parts[0] in ("timestamp", "index", "name", "uuid", "pci.bus_id"):
        if all(p and " " not in p for p in parts):
            return tuple(parts)
    return None


def _split_cells(line: str, n_fields: int, fields: Sequence[str]) -> list[str]:
    cells = [c.strip() for c in line.strip().split(",")]
    if len(cells) > n_fields and "name" in fields:
        # a GPU name with a comma: glue the surplus back into the name cell
        at = list(fields).index("name")
        extra = len(cells) - n_fields
        cells[at : at + extra + 1] = [", ".join(cells[at : at + extra + 1])]
    return cells


def parse_query_line(
    line: str,
    fields: Sequence[str] = QUERY_FIELDS,
    *,
    host: str | None = None,
    now: float | None = None,
    refused: list[str] | None = None,
) -> GpuSample:
    """One `--format=csv,noheader[,nounits]` line -> GpuSample.

    `now` stamps the sample with the reader's clock (remote clocks differ); without it
    the line's own `timestamp` field is used when present. A figure out of its range is None
    (with a note) and, when `refused` is given, said there as `field: why`.
    """
    fields = tuple(fields)
    cells = _split_cells(line, len(fields), fields)
    if len(cells) != len(fields):
        raise QueryLineError(f"expected {len(fields)} fields, got {len(cells)}: {line.strip()[:120]!r}")
    values: dict[str, Any] = {}
    notes: dict[str, str] = {}
    timestamp: float | None = now
    for at, attr, kind in _plan(fields):
        raw = cells[at]
        if kind == "num":
            number, why = parse_value(raw)
            if why is None:
                why = figure_problem(attr, number)
                if why is not None and refused is not None:
                    refused.append(f"{fields[at]} {why}")
            values[attr] = number if why is None else None
            if why is not None:
                notes[attr] = why
        elif kind == "str":
            if _is_missing_text(raw):
                values[attr] = None
                notes[attr] = raw or "(empty)"
            else:
                values[attr] = raw
        elif kind == "hex":
            try:
                values[attr] = decode_clock_event_reasons(int(raw, 16))
            except ValueError:
                values[attr] = ()
                notes[attr] = raw or "(empty)"
        elif now is None:  # "ts"
            timestamp = parse_timestamp(raw)
    index = values.pop("index", None)
    raw_index = cells[fields.index("index")] if "index" in fields else ""
    if not isinstance(index, int) and not raw_index.isdigit():
        raise QueryLineError(f"no GPU index in line: {line.strip()[:120]!r}")
    why = index_problem(index) if index is not None else f"GPU index of {len(raw_index):,} digits is not an index"
    if why is not None:
        if refused is not None:
            refused.append(why)
        raise QueryLineError(why)
    power_field = next((f for f in fields if FIELD_TO_ATTR.get(f) == "power_w"), None)
    return GpuSample(index=index, timestamp=timestamp, host=host, notes=notes,
                     power_window_s=POWER_WINDOW_S.get(power_field or ""), **values)


@lru_cache(maxsize=32)
def _plan(fields: tuple[str, ...]) -> tuple[tuple[int, str, str], ...]:
    """(cell position, GpuSample attribute, kind) per used field; first name per attribute wins."""
    plan: list[tuple[int, str, str]] = []
    seen: set[str] = set()
    for at, name in enumerate(fields):
        if name == "timestamp":
            plan.append((at, "timestamp", "ts"))
            continue
        attr = FIELD_TO_ATTR.get(name)
        if attr is None or attr in seen:
            continue
        seen.add(attr)
        kind = "str" if attr in _STRING_ATTRS else "hex" if attr == "throttle_reasons" else "num"
        plan.append((at, attr, kind))
    return tuple(plan)


def _is_missing_text(raw: str) -> bool:
    text = raw.strip()
    return not text or text == "N/A" or (text.startswith("[") and text.endswith("]"))


def parse_query_csv(
    text: str, fields: Sequence[str] = QUERY_FIELDS, *, host: str | None = None,
    refused: list[tuple[int, str]] | None = None,
) -> list[GpuSample]:
    """Every sample line of a CSV dump (a header line, if any, sets the fields). `refused`,
    when given, gets (line number, why) for each figure or index out of its range."""
    out: list[GpuSample] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        found = header_fields(line)
        if found is not None:
            fields = found
            continue
        whys: list[str] | None = [] if refused is not None else None
        try:
            out.append(parse_query_line(line, fields, host=host, refused=whys))
        except QueryLineError:
            continue
        finally:
            if refused is not None and whys:
                refused.extend((number, why) for why in whys)
    return out


class QueryStreamParser:
    """Groups the lines of a `--query-gpu ... -lms N` stream into per-tick batches.

    Works on any text source: an SSH channel, a subprocess, a recorded file replayed
    by the demo. A tick ends when a GPU index repeats, or as soon as the batch holds
    as many GPUs as the previous complete tick did.
    """

    def __init__(
        self,
        fields: Sequence[str] = QUERY_FIELDS,
        *,
        host: str | None = None,
        clock: Callable[[], float] | None = time.time,
    ) -> None:
        self.fields: tuple[str, ...] = tuple(fields)
        self.host = host
        self._clock = clock
        self._batch: list[GpuSample] = []
        self._seen: set[int] = set()
        self._expected: int | None = None
        self._partial = ""
        self.errors: list[str] = []
        """Non-sample lines (nvidia-smi error text), most recent last, at most 20."""

    def feed(self, chunk: str) -> list[tuple[GpuSample, ...]]:
        """Raw text, possibly cut mid-line -> the batches it completes."""
        data = self._partial + chunk
        lines = data.split("\n")
        self._partial = lines.pop()
        out: list[tuple[GpuSample, ...]] = []
        for line in lines:
            batch = self.feed_line(line)
            if batch is not None:
                out.append(batch)
        return out

    def feed_line(self, line: str) -> tuple[GpuSample, ...] | None:
        """One complete line -> the batch it completes, if any."""
        line = line.rstrip("\r\n")
        if not line.strip():
            return None
        if line.lstrip()[:1].isalpha():  # sample lines start with a digit (timestamp, index)
            found = header_fields(line)
            if found is not None:
                self.fields = found
                return None
        now = self._clock() if self._clock is not None else None
        try:
            sample = parse_query_line(line, self.fields, host=self.host, now=now)
        except QueryLineError:
            self.errors.append(line.strip())
            del self.errors[:-20]
            return None
        done: tuple[GpuSample, ...] | None = None
        if sample.index in self._seen:
            done = self._take()
            self._expected = len(done)
        self._batch.append(sample)
        self._seen.add(sample.index)
        if done is None and self._expected is not None and len(self._batch) >= self._expected:
            done = self._take()
        return done

    def flush(self) -> list[tuple[GpuSample, ...]]:
        """End of stream: the batches still pending (an unterminated line, a partial tick)."""
        out: list[tuple[GpuSample, ...]] = []
        if self._partial.strip():
            line, self._partial = self._partial, ""
            done = self.feed_line(line)
            if done is not None:
                out.append(done)
        if self._batch:
            out.append(self._take())
        return out

    def _take(self) -> tuple[GpuSample, ...]:
        batch = tuple(sorted(self._batch, key=lambda s: s.index))
        self._batch = []
        self._seen = set()
        return batch


# --- the default human table (`nvidia-smi` with no arguments) -------------------------

_TABLE_ROW1 = re.compile(r"^\|\s+(\d+)\s+(.+?)\s+(\S+)\s*\|\s*[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:")
_TABLE_ROW2 = re.compile(
    r"^\|\s*(?P<fan>\S+)\s+(?P<temp>\S+)\s+(?P<perf>\S+)\s+(?P<pwr>\S+)\s*/\s*(?P<cap>\S+)\s*\|"
    r"\s*(?P<used>\S+)\s*/\s*(?P<total>\S+)\s*\|\s*(?P<util>\S+)"
)


def parse_nvsmi_table(text: str, *, host: str | None = None) -> list[GpuSample]:
    """The GPU boxes of the default `nvidia-smi` table -> one GpuSample each.

    Handles the 79/89/91-column layouts and the R610 `KMD Version` banner; names may be
    truncated as printed (`NVIDIA A100-SXM...`).
    """
    out: list[GpuSample] = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m1 = _TABLE_ROW1.match(line)
        if m1 is None or i + 1 >= len(lines):
            continue
        m2 = _TABLE_ROW2.match(lines[i + 1])
        if m2 is None:
            continue
        notes: dict[str, str] = {}

        def num(attr: str, raw: str, notes: dict[str, str] = notes) -> float | int | None:
            value, why = parse_value(raw)
            if why is not None:
                notes[attr] = why
            return value

        index = read_int(m1.group(1))
        if index is None or index_problem(index) is not None:
            continue
        power = num("power_w", m2["pwr"])
        cap = num("power_limit_w", m2["cap"])
        out.append(
            GpuSample(
                index=index,
                name=m1.group(2).strip(),
                power_w=None if power is None else float(power),
                power_limit_w=None if cap is None else float(cap),
                mem_used_mib=num("mem_used_mib", m2["used"]),
                mem_total_mib=num("mem_total_mib", m2["total"]),
                util_gpu_pct=num("util_gpu_pct", m2["util"]),
                temp_c=num("temp_c", m2["temp"]),
                host=host,
                notes=notes,
            )
        )
    return out


def looks_like_table(text: str) -> bool:
    return "NVIDIA-SMI" in text and "Pwr:Usage/Cap" in text


def summarize(samples: Iterable[GpuSample]) -> dict[str, object]:
    """The compact per-GPU summary pinned by the corpus `*.expect.json` (table/query)."""
    per_gpu = [
        {
            "index": s.index,
            "name": s.name,
            "power_draw_w": None if s.power_w is None else float(s.power_w),
            "power_limit_w": None if s.power_limit_w is None else float(s.power_limit_w),
            "memory_used_mib": s.mem_used_mib,
            "memory_total_mib": s.mem_total_mib,
            "utilization_pct": s.util_gpu_pct,
            "temperature_c": s.temp_c,
        }
        for s in samples
    ]
    return {"gpus": len(per_gpu), "per_gpu": per_gpu}
