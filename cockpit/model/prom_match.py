"""`[[prometheus]] match`: which of a shared Prometheus's targets are this fleet's.

A team's Prometheus scrapes much more than one fleet (and keeps every down target of it);
`match` names the targets that are this fleet's, with PromQL label matchers, as a table
(`match = {job = "sglang", cluster = "a"}`: each label equal) or a selector string
(`match = '{job=~"sglang|dcgm", cluster="a"}'`, braces optional). The fleet's every query
carries them; `matches()` applies them to a target's labels (the targets API) the same way.

Plain Python: parsed when the session loads, so a bad matcher is an error at load that
says which part, never a query Prometheus refuses later.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

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
        hit = re.fullmatch(self.value, have) is not None  # PromQL regexes are anchored
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
        try:
            re.compile(m.value)
        except re.error as exc:
            raise MatchError(f"match {m.name}{m.op}{m.value!r}: not a regular expression ({exc})") from None
    return m


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
