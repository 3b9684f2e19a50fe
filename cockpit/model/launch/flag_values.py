"""When two launch flag values are the same value: numbers compare as numbers.

`--mem-fraction-static 0.80` and `0.8` launch the same server, so the profile diff, the
handoff, the timeline's drops and the search's duplicate check must call
them equal. The one rule, used by all of them (through `canonical_word`):

* a word that is a finite decimal number (`0.80`, `128`, `128.0`, `1e3`, `+2`, `-0.5`, `1_000`)
  compares by its value: 0.80 == 0.8, 128 == 128.0 == 1.28e2, -0 == 0;
* any other word compares as text, exactly (`auto`, `True`, `0x10`, `inf`, `nan`, paths);
* a value of several words (`--cuda-graph-bs 1 2 4`) compares word by word, in order.

`128` == `128.0` is a decision: they are the same number, and that is what a person
comparing two configurations means. A flag SGLang reads with `type=int` refuses `128.0`
at start (an argparse error), so such a profile never gets as far as being measured; it is
not a second configuration worth launching.

Shown text is never rewritten: a diff still prints the words as the profile holds them.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from decimal import Decimal, InvalidOperation

__all__ = ["canonical_value", "canonical_values", "canonical_word", "number", "same_value"]

# what Decimal reads that is not a plain decimal number: inf, nan, snan (any case) are words
_DECIMAL = re.compile(r"[+-]?(\d[\d_]*)?(\.\d*)?([eE][+-]?\d+)?")


def number(word: str) -> Decimal | None:
    """The value of a word that is a finite decimal number, else None."""
    text = word.strip()
    if not text or not any(c.isdigit() for c in text) or not _DECIMAL.fullmatch(text):
        return None
    try:
        value = Decimal(text)
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


def canonical_word(word: str) -> str:
    """The word as it compares: a number in its shortest plain form (0.80 -> 0.8, 128.0 -> 128,
    1e3 -> 1000, -0 -> 0), any other word unchanged."""
    value = number(word)
    if value is None:
        return word
    if value == 0:
        return "0"
    return format(value.normalize(), "f")


def canonical_value(text: str) -> str:
    """A flag's value text (one word, or several as the profile diff joins them) as it compares."""
    try:
        words = shlex.split(text)
    except ValueError:  # an unclosed quote: compared as written
        return text
    if len(words) <= 1:
        return canonical_word(words[0]) if words else text
    return shlex.join(canonical_word(w) for w in words)


def same_value(a: str | None, b: str | None) -> bool:
    """Whether two values of one flag are the same (None: the flag is absent)."""
    if a is None or b is None:
        return a is b
    return canonical_value(a) == canonical_value(b)


def canonical_values(values: Iterable[str]) -> tuple[str, ...]:
    """Each occurrence's value, canonical (a flag given twice keeps both, in order)."""
    return tuple(canonical_value(v) for v in values)
