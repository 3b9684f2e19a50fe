"""Patterns a person or a received session gives: one that would backtrack without bound
in `re` answers at once (linear time) with the same match/no-match; the others are `re`."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cockpit.parse import user_pattern
from cockpit.parse.user_pattern import LinearPattern, backtracking_risk, compile_user_pattern

EXPLOSIVE = ["(A+)+B", "(a|ab)*c", "(a|a)*b", r"(\w+\s?)*!", "(x+x+)+y", "(.*a){12}", "^(a+)+$", "a.*a.*a.*a.*b"]
SAFE = ["NCCL", "queue-req: 3", "error.*rank", r"\d+ tok/s", "(ab)+", "x{2,5}", r"(?i)cuda (oom|out of memory)",
        "[", "a++b", r"(\w|\d)+x"]


@pytest.mark.parametrize("pattern", EXPLOSIVE)
def test_a_pattern_that_can_backtrack_without_bound_is_named(pattern):
    assert backtracking_risk(pattern) is not None


@pytest.mark.parametrize("pattern", SAFE)
def test_common_patterns_stay_with_re(pattern):
    compiled = compile_user_pattern(pattern)
    assert isinstance(compiled.matcher, re.Pattern) and compiled.note is None


@pytest.mark.skipif(not user_pattern.HYPERSCAN, reason="no Hyperscan wheel here")
@pytest.mark.parametrize("pattern", EXPLOSIVE)
def test_explosive_patterns_answer_at_once_and_as_re_would(pattern):
    compiled = compile_user_pattern(pattern)
    assert isinstance(compiled.matcher, LinearPattern), compiled.note
    lines = ["A" * 34, "A" * 34 + "B", "a" * 40, "a" * 40 + "c", "ab" * 30 + "c", "word " * 30, "word " * 30 + "!",
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy", "é" + "a" * 30 + "b"]
    started = time.perf_counter()
    for line in lines:
        compiled.matcher.search(line)
    assert time.perf_counter() - started < 0.5
    flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
    rx = re.compile(pattern, flags)
    short = [line[-12:] for line in lines]  # short enough for `re` to answer: the same verdicts
    assert [compiled.matcher.search(s) is not None for s in short] == [rx.search(s) is not None for s in short]


@pytest.mark.skipif(not user_pattern.HYPERSCAN, reason="no Hyperscan wheel here")
def test_highlights_are_the_greedy_spans():
    matcher = compile_user_pattern("(A+)+B").matcher
    text = "xxAAB yy AB AAAAAB"
    assert [(m.start(), m.end()) for m in matcher.finditer(text)] == [(2, 5), (9, 11), (12, 18)]
    text = "ééAAB"  # offsets in characters, not UTF-8 bytes
    assert [(m.start(), m.end()) for m in matcher.finditer(text)] == [(2, 5)]


def test_without_a_linear_engine_an_explosive_pattern_is_literal_text(monkeypatch):
    monkeypatch.setattr(user_pattern, "HYPERSCAN", False)
    compile_user_pattern.cache_clear()
    try:
        compiled = compile_user_pattern("(A+)+B")
        assert compiled.note and "literal text" in compiled.note
        started = time.perf_counter()
        assert compiled.matcher.search("A" * 34) is None
        assert compiled.matcher.search("see (A+)+B here") is not None
        assert time.perf_counter() - started < 0.1
    finally:
        compile_user_pattern.cache_clear()


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="ab()+*?|", min_size=1, max_size=8), st.text(alphabet="ab", max_size=14))
def test_any_small_pattern_gives_the_answer_re_gives(pattern, text):
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return
    compiled = compile_user_pattern(pattern)
    if compiled.note is None:
        assert (compiled.matcher.search(text) is not None) == (rx.search(text) is not None)


@pytest.mark.skipif(not user_pattern.HYPERSCAN, reason="no Hyperscan wheel here")
def test_a_pattern_the_linear_engine_compiles_for_minutes_is_cut_short():
    pattern = "(" * 90 + "a+" + ")+" * 90  # Hyperscan's compile of this runs for minutes
    started = time.perf_counter()
    compiled = compile_user_pattern(pattern)
    assert time.perf_counter() - started < user_pattern.COMPILE_TIMEOUT_S + 1.0
    assert compiled.note and "to compile" in compiled.note and "literal text" in compiled.note
    assert compiled.matcher.search("a" * 100) is None
