"""The fast live paths equal the plain ones: lazy events, series figures, batched folding."""

from __future__ import annotations

import pickle
import random
from pathlib import Path

from cockpit.live.log.metrics import LogMetrics
from cockpit.parse.log.batch_lines import parse_batch, series_figures
from cockpit.parse.log.events import DecodeBatch, HttpRequest, PrefillBatch
from cockpit.parse.log.sglang_log import parse_line, parse_text
from cockpit.parse.log.sglang_patterns import BATCH_MARKER
from cockpit.parse.log.summary import LogSummary

CORPUS = Path(__file__).resolve().parents[2] / "data" / "corpus" / "sglang-logs"


def _lines() -> list[str]:
    out: list[str] = []
    for p in sorted(CORPUS.glob("*.log")):
        out += p.read_text(encoding="utf-8", errors="replace").splitlines()
    rnd = random.Random(3)
    mangled = []
    for line in out:
        if "batch" in line:
            for _ in range(4):
                k = rnd.randrange(len(line) + 1)
                mangled.append(line[:k])
                bit = rnd.choice([", ", ": ", ",", " ", "token usage: ", "#running-req: 5, ", "full ", ", , ", "%"])
                mangled.append(line[:k] + bit + line[k:])
    return out + mangled


def test_lazy_events_equal_eager_ones() -> None:
    n = 0
    for line in _lines():
        ev = parse_line(line)
        if isinstance(ev, (DecodeBatch, PrefillBatch)):
            n += 1
            m = BATCH_MARKER.search(ev.line)
            eager = parse_batch(ev.line, m, ev.ts, ev.ranks)
            assert ev == eager and repr(ev) == repr(eager)
            assert pickle.loads(pickle.dumps(parse_line(line))) == eager
        elif isinstance(ev, HttpRequest):
            assert ev.method and repr(ev).startswith("HttpRequest(")
    assert n > 200


def test_series_figures_equal_typed_fields() -> None:
    for line in _lines():
        ev = parse_line(line)
        if not isinstance(ev, (DecodeBatch, PrefillBatch)):
            continue
        got = series_figures(parse_line(line))  # lazy, unparsed
        usage = ev.token_usage if ev.token_usage is not None else ev.full_token_usage
        gen = ev.gen_throughput if isinstance(ev, DecodeBatch) else None
        assert got == (ev.running_req, ev.queue_req, usage, gen), line
        assert series_figures(ev) == got  # and from a parsed one


def test_batched_summary_equals_event_by_event() -> None:
    text = "\n".join(_lines()) + "\n"
    events = parse_text(text)
    one = LogSummary()
    for ev in events:
        one.apply(ev)
    many = LogSummary()
    for i in range(0, len(events), 777):
        many.apply_all(events[i:i + 777])
    assert many.to_dict() == one.to_dict()


def test_metrics_fold_in_any_batching() -> None:
    lines = []
    for s in range(120):  # four DP ranks, several lines per second, a rank going silent
        for r in range(4 if s < 50 else 2):
            for k in range(3):
                lines.append(f"[2025-05-31 18:{s // 60:02d}:{s % 60:02d} DP{r} TP{r}] Decode batch. "
                             f"#running-req: {r + k}, #token: 100, token usage: 0.{r + 1}{k}, "
                             f"gen throughput (token/s): {100 + s + k}.00, #queue-req: {k}")
        if s % 17 == 0:
            lines.append(f"[2025-05-31 18:{s // 60:02d}:{s % 60:02d} DP0 TP0] Prefill batch. #new-seq: 1, "
                         f"#new-token: 5, #cached-token: 0, token usage: 0.90, #running-req: 9, #queue-req: 1")
    events = parse_text("\n".join(lines) + "\n")
    whole, bits = LogMetrics(), LogMetrics()
    whole.apply_all(events)
    for ev in events:
        bits.apply(ev)
    for name in ("gen_throughput", "running_req", "queue_req", "token_usage"):
        a, b = getattr(whole, name), getattr(bits, name)
        assert list(a.points) == list(b.points) and a.current == b.current and a.peak == b.peak, name
    assert whole.summary.to_dict() == bits.summary.to_dict()
    assert whole.dp_ranks == bits.dp_ranks == 2
    assert whole.runs.current.summary.decode_lines == 120 * 2 * 3 + 50 * 2 * 3
