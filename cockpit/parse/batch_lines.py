"""Prefill and decode batch lines: the marker, then `label: value` pairs read one by one.

Lines are parsed field by field, never with one regex for the whole line, because the
field set changed in every release and pastes are trimmed or cut mid-line. Unknown labels
are kept in `fields` and otherwise ignored.
"""

from __future__ import annotations

import re

from cockpit.parse.log_events import DecodeBatch, FieldValue, PrefillBatch, Ranks

# `Decode batch.`, `Prefill batch,`, `Prefill batch [12],`, legacy `new fill batch.`
MARKER = re.compile(r"(Decode|Prefill) batch(?:[.,]| \[(\d+)\],)|new fill batch\.")
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
        return int(text)
    number = text[:-1] if text.endswith("%") else text
    try:
        return float(number)
    except ValueError:
        return text


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
    return int(m.group()) if m else None


def _float(fields: dict[str, FieldValue], label: str) -> float | None:
    v = fields.get(label)
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return float(v)
    m = _FLOAT.match(v)
    return float(m.group()) if m else None


def _graph(fields: dict[str, FieldValue]) -> tuple[bool | None, str | None]:
    for label, value in fields.items():
        if isinstance(value, bool):
            m = _GRAPH.fullmatch(label)
            if m:
                return value, m.group(1).lower()
    return None, None


def parse_batch(line: str, match: re.Match[str], ts: str | None, ranks: Ranks):
    """Build the PrefillBatch or DecodeBatch event for a line whose MARKER matched."""
    legacy = match.group(1) is None
    fields = _fields(line[match.end():], legacy)
    iteration = int(match.group(2)) if match.group(2) else None
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
