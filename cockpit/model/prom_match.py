"""`[[prometheus]] match`: which of a shared Prometheus's targets are this fleet's.

A team's Prometheus scrapes much more than one fleet (and keeps every down target of it);
`match` names the targets that are this fleet's, with PromQL label matchers, as a table
(`match = {job = "sglang", cluster = "a"}`: each label equal) or a selector string
(`match = '{job=~"sglang|dcgm", cluster="a"}'`, braces optional). The fleet's every query
carries them; `matches()` applies them to a target's labels (the targets API) the same way.

Plain Python. PromQL's regexes are RE2's (Go's regexp): they are judged and applied by RE2
(cockpit/ground/linear_regex.py), so `\\pL+` is taken and `(?!x)` refused as Prometheus
does; where there is no RE2 wheel, by a check of RE2's syntax. A bad `match` does not stop a
session loading: `cockpit check` says it (file:line) and the Fleet tab says it instead of
querying (`match_problem`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cockpit.ground import linear_regex
from cockpit.ground.linear_regex import LinearRegexError, compile_linear

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OP = re.compile(r"=~|!~|!=|=")
# a PromQL string: double- or single-quoted, backslash escapes
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|\'((?:[^\'\\]|\\.)*)\'')
_ESCAPES = {"n": "\n", "t": "\t", "\\": "\\", '"': '"', "'": "'"}


class MatchError(ValueError):
    """The matcher text is not PromQL label matchers (the message says where)."""


@dataclass(frozen=True, slots=True)
class Matcher:
    name: str
    op: str
    value: str

    def promql(self) -> str:
        escaped = self.value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        return f'{self.name}{self.op}"{escaped}"'

    def test(self, labels: Mapping[str, str]) -> bool:
        have = labels.get(self.name, "")  # an absent label is the empty string, as in PromQL
        if self.op == "=":
            return have == self.value
        if self.op == "!=":
            return have != self.value
        hit = _fullmatch(self.value, have)  # PromQL regexes are anchored
        return hit if self.op == "=~" else not hit


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], "\\" + m[1]), text)


def parse_selector(text: str) -> tuple[Matcher, ...]:
    """`{job="sglang", cluster=~"a|b"}` (braces optional) -> its matchers."""
    body = text.strip()
    if body.startswith("{"):
        if not body.endswith("}"):
            raise MatchError(f"match {text!r}: a selector that opens with {{ closes with }}")
        body = body[1:-1]
    out: list[Matcher] = []
    pos = 0
    while True:
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos >= len(body):
            break
        name = _NAME.match(body, pos)
        if name is None:
            raise MatchError(f"match {text!r}: a label name expected at {body[pos:pos + 12]!r}")
        pos = name.end()
        while pos < len(body) and body[pos].isspace():
            pos += 1
        op = _OP.match(body, pos)
        if op is None:
            raise MatchError(f"match {text!r}: =, !=, =~ or !~ expected after {name[0]!r}")
        pos = op.end()
        while pos < len(body) and body[pos].isspace():
            pos += 1
        value = _STRING.match(body, pos)
        if value is None:
            raise MatchError(f"match {text!r}: a quoted value expected after {name[0]}{op[0]}")
        pos = value.end()
        out.append(_checked(Matcher(name[0], op[0], _unescape(value[1] if value[1] is not None else value[2]))))
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos < len(body):
            if body[pos] != ",":
                raise MatchError(f"match {text!r}: a comma expected at {body[pos:pos + 12]!r}")
            pos += 1
    if not out:
        raise MatchError(f"match {text!r}: no label matcher in it")
    return tuple(out)


def _checked(m: Matcher) -> Matcher:
    if m.name == "__name__":
        raise MatchError("match names targets (job, cluster, instance...), not metrics: __name__ is the "
                         "fleet's to choose")
    if m.op in ("=~", "!~"):
        why = re2_problem(m.value)
        if why:
            raise MatchError(f"match {m.name}{m.op}{m.value!r}: not a regular expression Prometheus takes "
                             f"(RE2 syntax: {why})")
    return m


def re2_problem(pattern: str) -> str | None:
    """Why Prometheus (RE2's syntax) would refuse `pattern` as a regex, or None."""
    if linear_regex.RE2:
        try:
            compile_linear(pattern, bounded=False)
        except LinearRegexError as exc:
            return str(exc)
        return None
    return _re2_syntax_problem(pattern)


# Perl's constructs RE2 does not have, for the check where no RE2 wheel exists.
_PERL_GROUPS = ("(?=", "(?!", "(?<=", "(?<!", "(?>", "(?(", "(?P=")


def _re2_syntax_problem(pattern: str) -> str | None:
    r"""RE2's syntax judged without RE2: Perl's lookaround, backreferences, atomic groups,
    conditionals and possessive repeats refused, the rest as `re` reads it (`\pL` taken)."""
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == "\\":
            nxt = pattern[i + 1:i + 2]
            if nxt and (nxt in "123456789Z" or pattern.startswith("g<", i + 1)):
                return f"{pattern[i:i + 2]!r} (a backreference or \\Z) is Perl syntax RE2 does not have"
            if nxt in ("p", "P") and pattern.startswith("{", i + 2):  # \p{Greek}: one class
                i = pattern.find("}", i) + 1 or n
                continue
            i += 2
            continue
        if c == "[":  # a class: `]` first (after `^`) is a member; escapes inside
            j = i + 1
            if pattern[j:j + 1] == "^":
                j += 1
            if pattern[j:j + 1] == "]":
                j += 1
            while j < n and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i = j + 1
            continue
        if c == "(":
            perl = next((g for g in _PERL_GROUPS if pattern.startswith(g, i)), None)
            if perl:
                return f"{perl!r} (lookaround, an atomic group or a conditional) is Perl syntax RE2 does not have"
        if c in "*+?}" and pattern[i + 1:i + 2] == "+":
            return f"{pattern[i:i + 2]!r} (a possessive repeat) is Perl syntax RE2 does not have"
        i += 1
    try:
        re.compile(pattern)
    except re.error as exc:
        if "\\p" in pattern or "\\P" in pattern:  # a Unicode class RE2 has and `re` lacks
            return None
        return str(exc)
    return None


@functools.lru_cache(maxsize=256)
def _compiled(pattern: str) -> Any:
    if linear_regex.RE2:
        return compile_linear(pattern, bounded=False)
    return re.compile(pattern, re.DOTALL)


def _fullmatch(pattern: str, text: str) -> bool:
    try:
        return _compiled(pattern).fullmatch(text) is not None
    except (LinearRegexError, re.error):  # no RE2 here and `re` cannot read it: keep the target
        return True


def match_problem(match: Mapping[str, str] | str | None) -> str | None:
    """Why a `[[prometheus]] match` is not label matchers Prometheus takes, or None."""
    try:
        matchers_of(match)
    except MatchError as exc:
        return str(exc)
    return None


def matchers_of(match: Mapping[str, str] | str | None) -> tuple[Matcher, ...]:
    """The session's `match` (a table of equalities or a selector string) -> matchers."""
    if match is None:
        return ()
    if isinstance(match, str):
        return parse_selector(match)
    out = []
    for name, value in match.items():
        if not _NAME.fullmatch(name):
            raise MatchError(f"match: {name!r} is not a label name")
        out.append(_checked(Matcher(name, "=", value)))
    return tuple(out)


def promql(matchers: tuple[Matcher, ...]) -> str:
    """`job="sglang",cluster="a"`: to put inside a selector's braces ("" for none)."""
    return ",".join(m.promql() for m in matchers)


def matches(matchers: tuple[Matcher, ...], labels: Mapping[str, str]) -> bool:
    return all(m.test(labels) for m in matchers)
