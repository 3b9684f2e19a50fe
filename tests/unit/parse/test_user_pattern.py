"""Patterns a person or a received session gives are matched in linear time (RE2): the
issue's three freezes answer at once on long lines; a regex RE2 cannot take is refused with
why; text that is no regex is its literal self; with no RE2 nothing reaches `re`."""

from __future__ import annotations

import re
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cockpit.ground import linear_regex
from cockpit.parse.user_pattern import compile_user_pattern

# the issue's three: (pattern, a line it spends minutes / seconds on in `re`, a line it matches)
FREEZES = [
    ("(A|B)*C", "AB" * 50_000, "AB" * 50_000 + "C"),
    ("A.*A.*B", "A" * 4_000, "A" * 4_000 + "B"),
    ("A.*B", "A" * 100_000, "x" + "A" * 99_998 + "B"),
]
EXPLOSIVE = ["(A+)+B", "(a|ab)*c", "(a|a)*b", r"(\w+\s?)*!", "(x+x+)+y", "(.*a){12}", "^(a+)+$", "a.*a.*a.*a.*b"]


@pytest.mark.parametrize(("pattern", "slow", "hit"), FREEZES, ids=[case[0] for case in FREEZES])
def test_the_issues_freezes_answer_at_once_on_long_lines(pattern, slow, hit):
    compiled = compile_user_pattern(pattern)
    assert compiled.note is None and not compiled.refused
    started = time.perf_counter()
    assert compiled.matcher.search(slow) is None
    found = compiled.matcher.search(hit)
    spans = [(m.start(), m.end()) for m in compiled.matcher.finditer(hit)]
    assert time.perf_counter() - started < 0.5
    assert found is not None and spans == [(found.start(), found.end())]
    assert spans[0][1] == len(hit)


@pytest.mark.parametrize("pattern", EXPLOSIVE)
def test_backtracking_shapes_answer_at_once_and_as_re_would(pattern):
    compiled = compile_user_pattern(pattern)
    assert compiled.note is None
    lines = ["A" * 34, "A" * 34 + "B", "a" * 40, "a" * 40 + "c", "ab" * 30 + "c", "word " * 30, "word " * 30 + "!",
             "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxy"]
    started = time.perf_counter()
    for line in lines:
        compiled.matcher.search(line * 1000)
    assert time.perf_counter() - started < 1.0
    flags = 0 if any(c.isupper() for c in pattern) else re.IGNORECASE
    rx = re.compile(pattern, flags)
    short = [line[-12:] for line in lines]  # short enough for `re` to answer: the same verdicts
    assert [compiled.matcher.search(s) is not None for s in short] == [rx.search(s) is not None for s in short]


def test_highlights_are_the_spans_re_gives():
    matcher = compile_user_pattern("A+B").matcher
    text = "xxAAB yy AB AAAAAB"
    assert [(m.start(), m.end()) for m in matcher.finditer(text)] == [(2, 5), (9, 11), (12, 18)]
    text = "ééAAB"  # offsets in characters, not UTF-8 bytes
    assert [(m.start(), m.end()) for m in matcher.finditer(text)] == [(2, 5)]
    assert compile_user_pattern("nccl").matcher.search("NCCL WARN") is not None  # smart case
    assert compile_user_pattern("Nccl").matcher.search("NCCL WARN") is None


@pytest.mark.parametrize(("pattern", "why"), [
    ("(?!other).*", "(?!"), (r"(a)\1", r"\1"), ("(?<=x)y", "(?<"), ("a++b", "++"), (".{1000}z", "steps"),
])
def test_a_regex_the_linear_engine_cannot_take_is_refused_with_why(pattern, why):
    compiled = compile_user_pattern(pattern)
    assert compiled.refused and compiled.note
    assert why in compiled.note and "linear time" in compiled.note
    assert compiled.matcher.search(pattern) is not None  # a saved one matches as its text
    assert compiled.matcher.search("other") is None


@pytest.mark.parametrize("text", ["[INFO", "queue-req: (", "a{"])
def test_text_that_is_no_regex_is_its_literal_self(text):
    compiled = compile_user_pattern(text)
    assert compiled.note is None and not compiled.refused
    assert compiled.matcher.search(f"xx {text} yy") is not None


def test_without_re2_a_regex_is_literal_text_said(monkeypatch):
    monkeypatch.setattr(linear_regex, "RE2", False)
    compile_user_pattern.cache_clear()
    try:
        compiled = compile_user_pattern("(A|B)*C")
        assert compiled.note and "literal text" in compiled.note and "google-re2" in compiled.note
        started = time.perf_counter()
        assert compiled.matcher.search("AB" * 50_000) is None
        assert compiled.matcher.search("see (A|B)*C here") is not None
        assert time.perf_counter() - started < 0.1
        assert compile_user_pattern("NCCL").note is None  # a plain word needs no engine
    finally:
        compile_user_pattern.cache_clear()


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab()+*?|.", min_size=1, max_size=8), st.text(alphabet="ab\n", max_size=14))
def test_any_small_pattern_gives_the_answer_re_gives(pattern, text):
    try:
        rx = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return
    compiled = compile_user_pattern(pattern)
    if not compiled.refused:
        got = compiled.matcher.search(text)
        want = rx.search(text)
        assert (got is None) == (want is None)
        if got is not None and want is not None:
            assert got.start() == want.start()  # leftmost-first, as `re`


def test_check_says_where_a_saved_filter_the_linear_engine_refuses_is(tmp_path):
    import subprocess
    import sys

    path = tmp_path / "s.toml"
    path.write_text('schema_version = 1\ntitle = "x"\n\n[ui.log]\nfilter = "(?!other)queue"\nsearch = "(A|B)*C"\n')
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{path}:5:1: ui.log.filter: '(?!other)queue': not matched as a regex: "
                                  "invalid perl operator: (?!")
    assert "search" not in done.stderr  # (A|B)*C runs in linear time: taken
