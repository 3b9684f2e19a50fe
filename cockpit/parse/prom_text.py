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

from collections.abc import Mapping
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
    """Parse exposition text; raises ExpositionError on text the parser refuses."""
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
                samples.setdefault(canonical_name(s.name), []).append(
                    (dict(s.labels), float(s.value)))
    except (ValueError, TypeError, KeyError, IndexError) as exc:  # the parser's refusals
        raise ExpositionError(f"not Prometheus exposition text: {exc}") from None
    return Exposition(
        samples=dict({k: tuple(v) for k, v in samples.items()}),
        families=dict(families),
        spellings=frozenset(spellings),
    )
