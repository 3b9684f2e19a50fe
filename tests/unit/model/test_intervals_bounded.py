"""Every interval has a sane floor and ceiling, refused at its line otherwise: the autosave
delay (0 saves at once; 1e-300 was accepted), and the command line's seconds (`--interval
1e-300` scraped without pause, `--timeout inf` never gave up)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import loads_session

UI = 'schema_version = 1\ntitle = "x"\n\n[ui]\nautosave_delay_s = {}\n'


@pytest.mark.parametrize("value", ["1e-300", "5e-324", "0.01", "-0.5", "3601", "1e300", "inf", "nan"])
def test_an_absurd_autosave_delay_is_refused_at_its_line(value):
    with pytest.raises(SessionFileError) as err:
        loads_session(UI.format(value), "s.toml")
    assert err.value.render().startswith("s.toml:5:1: ui.autosave_delay_s: ")


@pytest.mark.parametrize("value", ["0", "0.0", "0.05", "2.0", "3600"])
def test_a_sane_autosave_delay_loads(value):
    assert loads_session(UI.format(value), "s.toml").ui.autosave_delay_s == float(value)


@pytest.mark.parametrize(("argv", "said"), [
    (["metrics", "http://127.0.0.1:9/metrics", "--interval", "1e-300"], "--interval: 1e-300 s: give 0.05 to 86400 seconds"),
    (["metrics", "http://127.0.0.1:9/metrics", "--timeout", "inf"], "--timeout: inf s: give 0.1 to 604800 seconds"),
    (["metrics", "http://127.0.0.1:9/metrics", "--window", "nan"], "--window: nan s: give 1 to 86400 seconds"),
    (["metrics", "http://127.0.0.1:9/metrics", "--rate-window", "0"], "--rate-window: 0 s: give 0.05 to 86400 seconds"),
    (["gpus", "--interval", "1e300"], "--interval: 1e300 s: give 0.05 to 86400 seconds"),
    (["gpus", "somehost", "--timeout", "1e-300"], "--timeout: 1e-300 s: give 0.1 to 604800 seconds"),
    (["tune", "s.toml", "q1", "--ready-timeout=-inf"], "--ready-timeout: -inf s: give 0.1 to 604800 seconds"),
    (["run", "s.toml", "l1", "--timeout", "1e9"], "--timeout: 1e9 s: give 0.1 to 604800 seconds"),
    (["stop", "s.toml", "--grace", "nan"], "--grace: nan s: give 0 to 3600 seconds"),
])
def test_the_command_line_refuses_absurd_seconds(argv, said):
    done = subprocess.run([sys.executable, "-m", "cockpit", *argv], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and said in done.stderr, done.stderr
