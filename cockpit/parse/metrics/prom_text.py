"""Prometheus exposition text -> plain samples, through prometheus-client's own parser.

No hand-written exposition parser: `text_string_to_metric_families` reads the text, and this
module only flattens it into `Exposition` (sample name -> labelled values), which is what the
SGLang and DCGM mappers look up. Sample names, not family names, are the key: a re-export
without `# TYPE` lines (Ray, some routers) gives `untyped` families whose samples still carry
their `_total` / `_bucket` suffixes, so lookups by sample name work for both.

SGLang's own server names its metrics `sglang:x`; the router and Ray re-export them as
`sglang_x` (a colon is not allowed everywhere). Both are stored under `sglang:x`.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

Labels = Mapping[str, str]

SGLANG_PREFIX = "sglang:"
SGLANG_ALT_PREFIX = "sglang_"


def canonical_name(name: str) -> str:
    """`sglang_x` (router, Ray) -> `sglang:x` (the server's own spelling); others unchanged."""
    if name.startswith(SGLANG_ALT_PREFIX):
        return SGLANG_PREFIX + name[len(SGLANG_ALT_PREFIX):]
    return name


class ExpositionError(ValueError):
    """The text is not Prometheus exposition format (the parser's reason in the message)."""


@dataclass(frozen=True, slots=True)
class Exposition:
    """One scrape, flattened: canonical sample name -> ((labels, value), ...)."""

    samples: Mapping[str, tuple[tuple[Labels, float], ...]] = field(default_factory=dict)
    families: Mapping[str, int] = field(default_factory=dict)
    """Family name as the parser names it (original spelling) -> its number of samples."""
    spellings: frozenset[str] = frozenset()
    """Which SGLang spellings the text used: {"sglang:"}, {"sglang_"}, both or neither."""

    def get(self, name: str) -> tuple[tuple[Labels, float], ...]:
        return self.samples.get(name, ())

    def has(self, name: str) -> bool:
        return name in self.samples

    @property
    def series(self) -> int:
        return sum(len(v) for v in self.samples.values())


def parse_exposition(text: str) -> Exposition:
    """Parse exposition text; raises ExpositionError on text the parser refuses.

    A feed scraping one endpoint again and again uses `ExpositionCache.parse` instead."""
    return _parse_in_order(text)[0]


@dataclass(slots=True)
class _Plan:
    """What prometheus-client made of one page's series: per sample line, its canonical
    name and labels, in line order; reused while the next pages have the same series."""

    heads: list[str]
    names: list[str]
    labels: list[Labels]
    families: dict[str, int]
    spellings: frozenset[str]


def _split_values(text: str) -> tuple[list[str], list[str]]:
    """Each line less its last space-separated field (the value on a sample line), and those
    fields. Comment and blank lines are kept whole, with no field."""
    heads: list[str] = []
    values: list[str] = []
    for line in text.split("\n"):
        if not line or line[0] == "#":
            heads.append(line)
            continue
        head, _, value = line.rpartition(" ")
        heads.append(head)
        values.append(value)
    return heads, values


class ExpositionCache:
    """`parse_exposition` for one endpoint scraped again and again (goal: a 2,000-series
    page in under 5 ms; prometheus-client's parser takes ~40 ms).

    An endpoint serves the same series every scrape; only the values move. The first page
    (and any page whose series, HELP or TYPE lines differ) is parsed by prometheus-client,
    the parser of record, which names each sample and its labels; the plan keeps that per
    sample line. A later page whose lines, less their values, are the same text is read
    from the plan: only its values are converted (with `float`, as prometheus-client does).
    A page the plan cannot be checked against (timestamps, one line giving two samples)
    is always parsed in full.
    """

    def __init__(self) -> None:
        self._plan: _Plan | None = None
        self.hits = 0
        self.misses = 0

    def parse(self, text: str) -> Exposition:
        heads, values = _split_values(text)
        plan = self._plan
        if plan is not None and heads == plan.heads:
            try:
                numbers = [float(v) for v in values]
            except ValueError:
                numbers = None
            if numbers is not None:
                self.hits += 1
                samples: dict[str, list[tuple[Labels, float]]] = {}
                for name, labels, value in zip(plan.names, plan.labels, numbers):
                    samples.setdefault(name, []).append((labels, value))
                return Exposition(samples={k: tuple(v) for k, v in samples.items()},
                                  families=plan.families, spellings=plan.spellings)
        self.misses += 1
        expo, order = _parse_in_order(text)
        self._plan = _plan_of(heads, values, expo, order)
        return expo


# No exposition line is near this long (a sample with its labels is a few hundred bytes);
# a page of one endless line is refused before prometheus-client spends seconds on it.
MAX_LINE_CHARS = 1 << 20


def _check_line_lengths(text: str, first_line: int = 1) -> None:
    if len(text) <= MAX_LINE_CHARS:  # a short page cannot hold a long line
        return
    lengths = list(map(len, text.split("\n")))
    longest = max(lengths)
    if longest > MAX_LINE_CHARS:
        raise ExpositionError(f"line {lengths.index(longest) + first_line} is over {MAX_LINE_CHARS >> 20} MB "
                              "(no exposition line is): not Prometheus exposition text")


def _parse_in_order(text: str) -> tuple[Exposition, list[tuple[str, Labels, float]]]:
    """parse_exposition, plus every sample in the order the parser gave them."""
    _check_line_lengths(text)
    order: list[tuple[str, Labels, float]] = []
    samples: dict[str, list[tuple[Labels, float]]] = {}
    families: dict[str, int] = {}
    spellings: set[str] = set()
    try:
        for fam in text_string_to_metric_families(text):
            families[fam.name] = families.get(fam.name, 0) + len(fam.samples)
            for s in fam.samples:
                if s.name.startswith(SGLANG_PREFIX):
                    spellings.add(SGLANG_PREFIX)
                elif s.name.startswith(SGLANG_ALT_PREFIX):
                    spellings.add(SGLANG_ALT_PREFIX)
                name, labels, value = canonical_name(s.name), dict(s.labels), float(s.value)
                order.append((name, labels, value))
                samples.setdefault(name, []).append((labels, value))
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        reason = str(exc)
        reason = reason if len(reason) <= 300 else reason[:300] + "..."  # it may quote a whole line
        raise ExpositionError(f"not Prometheus exposition text: {reason}") from None
    expo = Exposition(samples={k: tuple(v) for k, v in samples.items()}, families=dict(families),
                      spellings=frozenset(spellings))
    return expo, order


# The suffixes a family's samples add to its name.
_SAMPLE_SUFFIXES = ("_total", "_bucket", "_count", "_sum", "_created", "_gsum", "_gcount", "_info")


def family_names(samples: Iterable[str]) -> frozenset[str]:
    """The family names (canonical spelling) a `# HELP` / `# TYPE` line may give the samples
    `samples`: each sample name, and it less its suffix (`x_total` is family `x`)."""
    out = set(samples)
    for name in samples:
        for suffix in _SAMPLE_SUFFIXES:
            if name.endswith(suffix):
                out.add(name[: -len(suffix)])
    return frozenset(out)


# A line no exposition has: not blank, not a comment, and not a metric name followed by
# labels or a space and, last, a number (the value or a timestamp; float's spellings).
_NUMBER = r"[-+]?(?:(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?|(?i:inf|infinity|nan))"
_BAD_LINE = re.compile(r"^(?![ \t]*$|#|[A-Za-z_:][A-Za-z0-9_:]*[{ \t].*[ \t]" + _NUMBER + r"[ \t]*$).*$",
                       re.MULTILINE)
_SPELLINGS = tuple((p, re.compile("^" + re.escape(p), re.MULTILINE)) for p in ("sglang:", "sglang_"))
CHUNK_CHARS = 1 << 20


def _kept_lines(samples: frozenset[str]) -> re.Pattern[str]:
    """A line of one of `samples` (either spelling), or its family's HELP / TYPE line."""
    def names(found: Iterable[str]) -> str:
        bare = sorted((n[len(SGLANG_PREFIX):] for n in found if n.startswith(SGLANG_PREFIX)), key=lambda n: (-len(n), n))
        return "|".join(re.escape(n) for n in bare) or "(?!)"
    return re.compile(rf"^(?:sglang[:_](?:{names(samples)})[{{ \t].*"
                      rf"|#[ \t]+(?:HELP|TYPE)[ \t]+sglang[:_](?:{names(family_names(samples))})(?:[ \t].*)?)$",
                      re.MULTILINE)


def parse_exposition_kept(chunks: Iterable[str], samples: frozenset[str]) -> Exposition:
    """`parse_exposition` of only the families whose samples (canonical `sglang:` names) are
    in `samples`, from the page's text in pieces (a file read a megabyte at a time, or its
    lines): a 31 MB page of 700,000 series, most of them families nobody reads, is neither
    held whole nor parsed whole by prometheus-client, which still parses every line kept.
    Every line is checked for its shape: an over-long one, or one no sample line could be
    (no metric name, no number at its end), is an ExpositionError naming its line; what is
    not kept is not parsed further. `spellings` are those of the whole page."""
    kept_line = _kept_lines(samples)
    kept: list[str] = []
    spellings: set[str] = set()
    carry, line_no = "", 0
    for chunk in itertools.chain(chunks, (None,)):
        if chunk is not None:
            carry += chunk
            cut = carry.rfind("\n") + 1
            if not cut:
                if len(carry) > MAX_LINE_CHARS:
                    raise ExpositionError(f"line {line_no + 1} is over {MAX_LINE_CHARS >> 20} MB (no exposition "
                                          "line is): not Prometheus exposition text")
                continue
            block, carry = carry[:cut], carry[cut:]
        else:
            block, carry = carry, ""
            if not block:
                break
        if len(block) > MAX_LINE_CHARS:
            _check_line_lengths(block, first_line=line_no + 1)
        bad = _BAD_LINE.search(block)
        if bad:
            where = line_no + block.count("\n", 0, bad.start()) + 1
            raise ExpositionError(f"not Prometheus exposition text: line {where} is no sample line: {bad[0][:80]!r}")
        for prefix, first in _SPELLINGS:
            if prefix not in spellings and first.search(block):
                spellings.add(prefix)
        kept.extend(m[0] for m in kept_line.finditer(block))
        line_no += block.count("\n")
    expo = _parse_in_order("\n".join(kept) + "\n")[0] if kept else Exposition()
    return Exposition(samples=expo.samples, families=expo.families, spellings=frozenset(spellings))


def _same(a: float, b: float) -> bool:
    return a == b or (a != a and b != b)  # NaN is NaN


def _plan_of(heads: list[str], values: list[str], expo: Exposition,
             order: list[tuple[str, Labels, float]]) -> _Plan | None:
    """A plan when sample line i is the parser's sample i (checked value by value)."""
    if len(order) != len(values):
        return None
    try:
        if not all(_same(float(v), s[2]) for v, s in zip(values, order)):
            return None
    except ValueError:
        return None
    return _Plan(heads, [s[0] for s in order], [s[1] for s in order], dict(expo.families), expo.spellings)
