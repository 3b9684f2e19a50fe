"""Regex text for "a number greater than this one", written on the decimal digits.

The byte summary scans for the greatest value after a label without reading every value:
its patterns match only numbers greater than the best one so far (sampled seeds first),
so the regex engine skips the rest. `greater_lookahead` is exact (sre has lookarounds);
`greater_prefixes` matches a prefix of every greater number (Hyperscan has none), and
each hit is checked. A number's text is digits, optionally a fraction (`12`, `1234.56`).
"""

from __future__ import annotations

import re

_Key = tuple[tuple[bytes, bytes | None, bool], ...]  # (label, best text or None, float?) per label
_CACHE: dict[_Key, re.Pattern[bytes]] = {}


def labels_greater(key: _Key) -> re.Pattern[bytes]:
    """One sre regex: any of the labels followed by a number greater than its text. The
    labels must share their first byte (`#running-req: `, `#queue-req: `): the pass then
    stops only at that byte."""
    rx = _CACHE.get(key)
    if rx is None:
        if len(key) == 1:
            label, text, is_float = key[0]
            rx = re.compile(re.escape(label) + greater_lookahead(text, is_float))
        else:
            first = key[0][0][:1]
            assert all(label[:1] == first for label, _, _ in key), "labels must share their first byte"
            rx = re.compile(re.escape(first) + b"(?:" + b"|".join(
                re.escape(label[1:]) + greater_lookahead(text, is_float) for label, text, is_float in key) + b")")
        _CACHE[key] = rx
    return rx


def greater_lookahead(text: bytes | None, is_float: bool) -> bytes:
    """A pattern for the number after a label whose decimal value is greater than `text`
    (any number when text is None), exactly: for sre, with lookarounds. Greater decimals
    never make a smaller float."""
    if text is None:
        return rb"\d"
    whole, _, frac = text.decode().partition(".")
    whole = whole.lstrip("0") or "0"
    n = len(whole)
    alts = []  # same number of digits, greater
    for i, d in enumerate(whole):
        if d != "9":
            alts.append(whole[:i] + f"[{int(d) + 1}-9]" + (r"\d{%d}" % (n - i - 1)))
    # most values have fewer digits than the best: the lookahead rejects them at once
    same = r"|(?:%s)(?!\d)" % "|".join(alts) if alts else ""
    out = r"0*(?:(?=[1-9]\d{%d})(?:\d{%d}%s)" % (n - 1, n + 1, same)
    if is_float:
        frac = frac.rstrip("0")
        falts = [frac + r"\d*[1-9]"]  # the same digits, then more that are not all zeros
        for i, d in enumerate(frac):
            if d != "9":
                falts.append(frac[:i] + f"[{int(d) + 1}-9]")
        out += r"|%s\.(?:%s)" % (whole, "|".join(falts))
    return (out + ")").encode()


def greater_prefixes(text: bytes | None, is_float: bool) -> bytes:
    """A pattern for the number after a label, matching (a prefix of) every number
    greater than `text`, with no lookaround, for Hyperscan (each hit is still read and
    checked exactly).
    Floats are compared to the last digit of the fraction: with a prefix that stopped at
    the integer part, a steady throughput (1234.56, 1234.61, 1234.58 ...) made every line
    a candidate."""
    if text is None:
        return rb"\d"
    whole, _, frac = text.decode().partition(".")
    whole = whole.lstrip("0") or "0"
    n = len(whole)
    if whole == "0":
        alts = ["[1-9]"]
    else:
        alts = [r"[1-9]\d{%d}" % n]  # more digits
        for i, d in enumerate(whole):  # as many digits, the first difference greater
            if d != "9":
                rest = n - i - 1
                alts.append(whole[:i] + f"[{int(d) + 1}-9]" + (r"\d{%d}" % rest if rest else ""))
    if is_float:  # the same integer part: a greater fraction
        frac = frac.rstrip("0")
        falts = [frac + r"\d*[1-9]"]  # the same digits, then more that are not all zeros
        falts += [frac[:i] + f"[{int(d) + 1}-9]" for i, d in enumerate(frac) if d != "9"]
        alts.append(whole + r"\.(?:" + "|".join(falts) + ")")
    # leading zeros: 0* (measured 2x faster than a `0\d` alternative: `#queue-req: 0` is common)
    return ("0*(?:" + "|".join(alts) + ")").encode()
