"""`check` refuses what the TUI cannot open or would busy-loop on: an unknown tab, an
interval of 1e-300 s (or 0, inf, nan, a century), each with its file:line."""

from __future__ import annotations

import pytest

from cockpit.model.session import TABS, Host, PrometheusSource, Session, UiState
from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import loads_session

HOST = '[[hosts]]\nname = "gpu1"\n'
PROM = '[[prometheus]]\nname = "lab"\nurl = "http://prom:9090"\n'
CASES = [
    (HOST, "gpu_interval_s"), (HOST, "metrics_interval_s"), (PROM, "interval_s"), (PROM, "history_h"),
]


@pytest.mark.parametrize("value", ["1e-300", "0.0", "-1.0", "1e300", "inf", "nan"])
@pytest.mark.parametrize(("table", "key"), CASES, ids=[k for _, k in CASES])
def test_an_absurd_interval_is_refused_at_its_line(table, key, value):
    text = f'schema_version = 1\ntitle = "x"\n\n{table}{key} = {value}\n'
    with pytest.raises(SessionFileError) as err:
        loads_session(text, "s.toml")
    line = text.splitlines().index(f"{key} = {value}") + 1
    assert f"s.toml:{line}:1:" in err.value.render() and key in err.value.render()


@pytest.mark.parametrize(("key", "value"), [("autosave_delay_s", "1e300"), ("autosave_delay_s", "-1.0"),
                                            ("log_buffer_lines", "99999999999")])
def test_absurd_ui_settings_are_refused(key, value):
    with pytest.raises(SessionFileError, match=key):
        loads_session(f'schema_version = 1\ntitle = "x"\n\n[ui]\n{key} = {value}\n', "s.toml")


def test_sane_values_still_load():
    session = loads_session('schema_version = 1\ntitle = "x"\n\n' + HOST + "gpu_interval_s = 0.1\nmetrics_interval_s = 86400\n"
                            + PROM + "interval_s = 1\nhistory_h = 0.0167\n\n[ui]\nactive_tab = \"fleet\"\n", "s.toml")
    assert session.hosts[0].gpu_interval_s == 0.1 and session.ui.active_tab == "fleet"
    assert Host(name="a").gpu_interval_s == 1.0 and PrometheusSource(name="p", url="http://p").interval_s == 5.0
    assert Session().ui == UiState()


def test_the_model_knows_the_tuis_tabs():
    from cockpit.ui.keys.actions import TABS as UI_TABS

    assert TABS == tuple(tab for tab, *_ in UI_TABS)
