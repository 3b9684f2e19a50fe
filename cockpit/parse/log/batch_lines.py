"""Prefill and decode batch lines: the marker, then `label: value` pairs read one by one.

Lines are parsed field by field, never with one regex for the whole line, because the
field set changed in every release and pastes are trimmed or cut mid-line. Unknown labels
are kept in `fields` and otherwise ignored.
"""

from __future__ import annotations

import re

from cockpit.parse.log.events import DecodeBatch, FieldValue, PrefillBatch, Ranks
from cockpit.parse.log.sglang_patterns import BATCH_MARKER
from cockpit.parse.numbers import MAX_NUMBER_CHARS, read_float, read_int

_INT = re.compile(r"\d+")
_FLOAT = re.compile(r"\d+(?:\.\d+)?")
_GRAPH = re.compile(r"(\w+) graph$")

_LEGACY_NAMES = {
    "#seq": "#new-seq", "#cached_token": "#cached-token", "#new_token": "#new-token",
    "#remaining_req": "#queue-req", "#running_req": "#running-req",
    "tree_cache_hit_rate": "cache hit rate",
}


def _value(text: str) -> FieldValue:
    text = text.strip().rstrip(",").strip()
    if text in ("True", "False"):
        return text == "True"
    if text.isdigit():
        value = read_int(text)
        return text if value is None else value  # too long to be a figure: kept as text
    number = read_float(text[:-1] if text.endswith("%") else text)
    return text if number is None else number


def _fields(rest: str, legacy: bool) -> dict[str, FieldValue]:
    out: dict[str, FieldValue] = {}
    for part in rest.split(". " if legacy else ", "):
        label, sep, value = part.strip().partition(": ")
        if not sep or not label:
            continue  # `#queue-req` cut before its value, or a stray fragment
        if legacy:
            label = _LEGACY_NAMES.get(label, label)
        out.setdefault(label, _value(value))
    return out


def _int(fields: dict[str, FieldValue], label: str) -> int | None:
    v = fields.get(label)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, int):
        return v
    m = _INT.match(v) if isinstance(v, str) else None  # `5,` or a value cut mid-number
    return read_int(m.group()) if m else None


def _float(fields: dict[str, FieldValue], label: str) -> float | None:
    v = fields.get(label)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    m = _FLOAT.match(v)
    return read_float(m.group()) if m else None


def _graph(fields: dict[str, FieldValue]) -> tuple[bool | None, str | None]:
    for label, value in fields.items():
        if isinstance(value, bool):
            m = _GRAPH.fullmatch(label)
            if m:
                return value, m.group(1).lower()
    return None, None


def parse_batch(line: str, match: re.Match[str], ts: str | None, ranks: Ranks) -> DecodeBatch | PrefillBatch:
    """Build the PrefillBatch or DecodeBatch event for a line whose BATCH_MARKER matched."""
    legacy = match.group(1) is None
    fields = _fields(line[match.end():], legacy)
    iteration = read_int(match.group(2)) if match.group(2) else None
    graph, backend = _graph(fields)
    if match.group(1) == "Decode":
        token = _int(fields, "#token")
        return DecodeBatch(
            line=line, ts=ts, ranks=ranks, fields=fields, iteration=iteration,
            running_req=_int(fields, "#running-req"), queue_req=_int(fields, "#queue-req"),
            token=token if token is not None else _int(fields, "#full token"),
            token_usage=_float(fields, "token usage"),
            full_token_usage=_float(fields, "full token usage"),
            swa_token_usage=_float(fields, "swa token usage"),
            mamba_usage=_float(fields, "mamba usage"),
            pre_allocated_usage=_float(fields, "pre-allocated usage"),
            graph=graph, graph_backend=backend,
            gen_throughput=_float(fields, "gen throughput (token/s)"),
            accept_len=_float(fields, "accept len"), accept_rate=_float(fields, "accept rate"),
        )
    return PrefillBatch(
        line=line, ts=ts, ranks=ranks, fields=fields, iteration=iteration, legacy=legacy,
        new_seq=_int(fields, "#new-seq"), new_token=_int(fields, "#new-token"),
        cached_token=_int(fields, "#cached-token"),
        running_req=_int(fields, "#running-req"), queue_req=_int(fields, "#queue-req"),
        token_usage=_float(fields, "token usage"),
        full_token_usage=_float(fields, "full token usage"),
        swa_token_usage=_float(fields, "swa token usage"),
        mamba_usage=_float(fields, "mamba usage"),
        pending_token=_int(fields, "#pending-token"),
        cache_hit_rate=_float(fields, "cache hit rate"),
        graph=graph, graph_backend=backend,
        input_throughput=_float(fields, "input throughput (token/s)"),
    )


# --- the few figures the live metrics read, without building the whole event -------------
_UNSET = object()


def _as_int(v: FieldValue | None) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    m = _INT.match(v) if isinstance(v, str) else None
    return read_int(m.group()) if m else None


def _as_float(v: FieldValue | None) -> float | None:
    if v is None or isinstance(v, bool):
        return None
    if isinstance(v, (int, float)):
        return float(v)
    m = _FLOAT.match(v)
    return read_float(m.group()) if m else None


def _part_value(rest: str, key: str) -> FieldValue | None:
    """The value of the first `, `-separated part of `rest` whose label is `key` minus its
    `: `, as _fields would read it; None when no part has that label."""
    i = rest.find(key)
    while i >= 0:
        j = rest.rfind(", ", 0, i)  # where this part starts: ", " never overlaps itself
        gap = rest[j + 2 if j >= 0 else 0:i]
        if not gap or gap.isspace():
            k = rest.find(", ", i)
            text = rest[i + len(key):k if k >= 0 else len(rest)].strip()
            if text.isdigit() and len(text) <= MAX_NUMBER_CHARS:  # _value's common cases first
                return int(text)
            if "," not in text and "%" not in text and len(text) <= MAX_NUMBER_CHARS:
                try:
                    return float(text)
                except ValueError:
                    pass
            return _value(text)
        i = rest.find(key, i + 1)
    return None


def series_figures(event: DecodeBatch | PrefillBatch) -> tuple[int | None, int | None, float | None, float | None]:
    """(running_req, queue_req, usage, gen_throughput) of a batch event, equal to its typed
    fields (`usage`: token usage, else full token usage; gen: decode lines only), reading
    only those labels of the line: an event the parser built lazily stays unparsed."""
    try:
        object.__getattribute__(event, "running_req")  # already parsed, or built whole
        m = None
    except AttributeError:
        m = BATCH_MARKER.search(event.line)
    if m is None or m.group(1) is None:  # built whole, or a legacy line (rare): the typed fields
        usage = event.token_usage if event.token_usage is not None else event.full_token_usage
        gen = event.gen_throughput if isinstance(event, DecodeBatch) else None
        return event.running_req, event.queue_req, usage, gen
    rest = event.line[m.end():]
    usage = _as_float(_part_value(rest, "token usage: "))
    if usage is None:
        usage = _as_float(_part_value(rest, "full token usage: "))
    gen = _as_float(_part_value(rest, "gen throughput (token/s): ")) if m.group(1) == "Decode" else None
    return (_as_int(_part_value(rest, "#running-req: ")), _as_int(_part_value(rest, "#queue-req: ")),
            usage, gen)
