"""`[[prometheus]] match`: label matchers as a table or a selector string, checked at load."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cockpit.model.prom_match import MatchError, matchers_of, matches, parse_selector, promql
from cockpit.store.toml_store import load_session, save_session


def test_a_table_and_a_selector_string_become_promql_matchers() -> None:
    assert promql(matchers_of({"job": "sglang", "cluster": "a"})) == 'job="sglang",cluster="a"'
    got = parse_selector('{job=~"sglang|dcgm", cluster != \'b\', note="say \\"hi\\""}')
    assert [(m.name, m.op, m.value) for m in got] == [("job", "=~", "sglang|dcgm"), ("cluster", "!=", "b"),
                                                      ("note", "=", 'say "hi"')]
    assert promql(got) == 'job=~"sglang|dcgm",cluster!="b",note="say \\"hi\\""'
    assert promql(parse_selector('job="x"')) == 'job="x"'  # braces optional


def test_matchers_apply_to_a_target_s_labels_as_promql_does() -> None:
    m = parse_selector('{job=~"sglang|dcgm", cluster!="b", zone!~"eu-.*"}')
    assert matches(m, {"job": "dcgm", "cluster": "a"})              # zone absent: "" is not eu-...
    assert not matches(m, {"job": "sglang-router", "cluster": "a"})  # regexes are anchored
    assert not matches(m, {"job": "sglang", "cluster": "b"})
    assert not matches(m, {"job": "sglang", "zone": "eu-1"})


@pytest.mark.parametrize(("text", "says"), [
    ("{job=a}", "a quoted value expected after job="),
    ('{job="a",, }', "a label name expected"),
    ('{job="a" cluster="b"}', "a comma expected"),
    ('{job=="a"}', "a quoted value expected"),
    ('{job="a"', "closes with }"),
    ("{}", "no label matcher"),
    ('{job=~"("}', "not a regular expression"),
    ('{__name__="up"}', "not metrics"),
])
def test_a_bad_selector_says_which_part(text: str, says: str) -> None:
    with pytest.raises(MatchError, match=None) as err:
        parse_selector(text)
    assert says in str(err.value)


def test_match_and_rate_window_load_round_trip_and_a_bad_one_loads_but_check_refuses_it(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('schema_version = 1\ntitle = "x"\n\n[[prometheus]]\nname = "lab"\nurl = "http://p:9090"\n'
                    'match = {job = "sglang", cluster = "a"}\nrate_window_s = 120\n\n'
                    '[[prometheus]]\nname = "b"\nurl = "http://q:9090"\nmatch = \'{job=~"sglang|dcgm"}\'\n')
    session = load_session(path)
    assert session.prometheus[0].match == {"job": "sglang", "cluster": "a"}
    assert session.prometheus[0].rate_window_s == 120
    save_session(session, path)
    assert load_session(path).prometheus == session.prometheus
    path.write_text('schema_version = 1\ntitle = "x"\n\n[[prometheus]]\nname = "lab"\nurl = "http://p:9090"\n'
                    "match = '{job=\"a\",, }'\n\n[[tasks]]\nid = \"t1\"\ntitle = \"kept\"\n")
    assert [t.title for t in load_session(path).tasks] == ["kept"]  # one bad match never stops the load
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{path}:7:1: prometheus[0].match: match ") and "a label name expected" in done.stderr


# Prometheus's regexes are RE2's: what RE2 takes, Prometheus takes (`\pL`), and Perl's
# lookaround, which `re` has, Prometheus refuses (every query would fail).
@pytest.mark.parametrize(("selector", "why"), [
    ('{job=~"(?!other).*"}', "(?!"), ('{job=~"(a)\\\\1"}', "\\1"), ('{job=~"a++"}', "++"), ('{job!~"x(?<=y)"}', "(?<"),
])
def test_a_regex_prometheus_refuses_is_a_check_error_at_its_line(tmp_path: Path, selector: str, why: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text('schema_version = 1\ntitle = "x"\n\n[[prometheus]]\nname = "lab"\nurl = "http://p:9090"\n'
                    f"match = '{selector}'\n")
    assert load_session(path).prometheus[0].match == selector
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stdout
    assert done.stderr.startswith(f"{path}:7:1: prometheus[0].match: ")
    assert "not a regular expression Prometheus takes (RE2 syntax" in done.stderr and why in done.stderr


def test_a_unicode_class_prometheus_takes_loads_checks_and_matches(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('schema_version = 1\ntitle = "x"\n\n[[prometheus]]\nname = "lab"\nurl = "http://p:9090"\n'
                    "match = '{job=~\"\\\\pL+\"}'\n")
    session = load_session(path)
    done = subprocess.run([sys.executable, "-m", "cockpit", "check", str(path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    m = matchers_of(session.prometheus[0].match)
    assert promql(m) == 'job=~"\\\\pL+"'
    assert matches(m, {"job": "sglang"}) and matches(m, {"job": "sgläng"}) and not matches(m, {"job": "sglang-1"})


def test_without_re2_the_syntax_check_follows_re2_s_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    from cockpit.ground import linear_regex
    from cockpit.model import prom_match

    monkeypatch.setattr(linear_regex, "RE2", False)
    for pattern in ("(?!other).*", "(?<=a)b", "(a)\\1", "a++", "(?>a)", "x\\Z"):
        assert prom_match.re2_problem(pattern), pattern
    for pattern in ("\\pL+", "\\p{Greek}+", "sglang|dcgm", "[(?!]x", "(?i)a.*", "(?P<n>x)"):
        assert prom_match.re2_problem(pattern) is None, pattern
