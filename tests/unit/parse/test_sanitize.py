"""`sanitize`, the one boundary for untrusted text: every escape sequence shown whole and
inert, bidi and zero-width characters by code point, clean text untouched."""

from __future__ import annotations

import json
import unicodedata

import pytest

from hostile import RAW, VECTORS

from cockpit.ground.sanitize import UNSAFE, json_inert, sanitize


@pytest.mark.parametrize(("raw", "shown"), [
    ("\x1b]0;x\x07", "␛]0;x␇"),                                    # OSC 0: window title
    ("\x1b]2;pwned\x07", "␛]2;pwned␇"),                            # OSC 2
    ("\x1b]52;c;aGVsbG8=\x07", "␛]52;c;aGVsbG8=␇"),                # OSC 52: clipboard
    ("\x1b]52;c;aGVsbG8=\x1b\\", "␛]52;c;aGVsbG8=␛\\"),            # ... ended by ST
    ("\x1b[2J", "␛[2J"),                                           # CSI: clear screen
    ("\x1bPtmux;\x1b\x1b]0;pwn\x07\x1b\\", "␛Ptmux;␛␛]0;pwn␇␛\\"),  # DCS: tmux passthrough
    ("\x1b_apc\x1b\\ \x1b^pm\x1b\\ \x1bXsos\x1b\\", "␛_apc␛\\ ␛^pm␛\\ ␛Xsos␛\\"),  # APC, PM, SOS
    ("\x9b2J \x9d0;x\x9c \x90q\x9c", "\\x9b2J \\x9d0;x\\x9c \\x90q\\x9c"),  # 8-bit C1 CSI, OSC, DCS, ST
    ("abc\u202edef\u2066x\u2069", "abc<U+202E>def<U+2066>x<U+2069>"),  # bidi override, isolate
    ("a\u200bb\u200cc\u200dd\u2060e\ufefff", "a<U+200B>b<U+200C>c<U+200D>d<U+2060>e<U+FEFF>f"),  # zero-width
    ("x\u2028y\u2029z\u00adw", "x<U+2028>y<U+2029>z<U+00AD>w"),    # separators, soft hyphen
    ("tag\U000e0041\U000e007f", "tag<U+E0041><U+E007F>"),          # invisible tag characters
    ("x\x00y\x7fz\tw\r", "x␀y␡z\tw␍"),                              # TAB stays
    ("[/bogus] '^[a-z][0-9]+$'", "[/bogus] '^[a-z][0-9]+$'"),      # markup is not sanitize's job
])
def test_escape_sequences_and_invisibles_are_shown(raw, shown):
    assert sanitize(raw) == shown
    assert RAW.search(sanitize(raw)) is None


def test_line_breaks_kept_only_when_asked():
    assert sanitize("a\nb\r\nc") == "a␊b␍␊c"
    assert sanitize("a\nb\r\nc\rd", multiline=True) == "a\nb\nc␍d"


def test_clean_text_is_returned_as_is():
    line = "[2026-11-28 21:00:00 DP0 TP0] Decode batch. #running-req: 64, gen throughput (token/s): 1234.5 → é 日本"
    assert sanitize(line) is line
    assert sanitize(VECTORS["10k line"]) is VECTORS["10k line"]
    tabbed = "a\tb\u00a0c"  # not printable for Python, harmless for a terminal
    assert sanitize(tabbed) == tabbed


def test_every_control_and_format_character_is_covered():
    """The hard-coded set matches this Python's Unicode tables (Cc, Cf, Zl, Zp, Cs)."""
    missing = [hex(cp) for cp in range(0x110000)
               if unicodedata.category(chr(cp)) in ("Cc", "Cf", "Zl", "Zp", "Cs") and cp != 0x09
               and not UNSAFE.search(chr(cp))]
    assert missing == []
    odd = [hex(cp) for cp in range(0x110000) if UNSAFE.search(chr(cp)) and chr(cp).isprintable()]
    assert odd == [], "the isprintable() fast path would skip these"


def test_json_inert_is_the_same_json_without_raw_unsafe_characters():
    value = {"t": "é 日本 " + "".join(VECTORS.values()) + "\ud800\U000e0041\x7f"}
    dumped = json_inert(json.dumps(value, ensure_ascii=False, indent=1))
    assert json.loads(dumped) == value
    assert RAW.search(dumped) is None and "é 日本" in dumped
    assert "\\u202e" in dumped and "\\udb40\\udc41" in dumped
