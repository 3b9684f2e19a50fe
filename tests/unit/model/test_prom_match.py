"""`[[prometheus]] match`: label matchers as a table or a selector string, checked at load."""

from __future__ import annotations

from pathlib import Path

import pytest

from cockpit.model.prom_match import MatchError, matchers_of, matches, parse_selector, promql
from cockpit.store.toml_store import SessionFileError, load_session, save_session


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


def test_match_and_rate_window_load_round_trip_and_a_bad_one_is_a_load_error(tmp_path: Path) -> None:
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
                    "match = '{job=\"a\",, }'\n")
    with pytest.raises(SessionFileError) as err:
        load_session(path)
    assert "prometheus[0].match" in err.value.render() and "a label name expected" in err.value.render()
