"""A host's metrics endpoint and DCGM source in the session file (schema 1, optional fields)."""

import pydantic
import pytest

from cockpit.model.enums import GpuSource
from cockpit.model.session import SCHEMA_VERSION, Host, Session
from cockpit.store.toml_store import dumps_session, loads_session


def test_metrics_fields_round_trip_in_the_session_file():
    s = Session(hosts=[Host(name="gpu1", ssh="me@gpu1", gpu_source="dcgm",
                            metrics_url="http://127.0.0.1:30000/metrics", metrics_interval_s=2.5,
                            dcgm_url="http://127.0.0.1:9500/metrics")])
    text = dumps_session(s)
    assert 'metrics_url = "http://127.0.0.1:30000/metrics"' in text and 'gpu_source = "dcgm"' in text
    back = loads_session(text)
    assert back.hosts[0] == s.hosts[0] and back.schema_version == SCHEMA_VERSION == 1
    assert back.hosts[0].gpu_source is GpuSource.DCGM


def test_a_host_without_them_writes_nothing_new():
    assert "metrics" not in dumps_session(Session(hosts=[Host(name="box")]))


@pytest.mark.parametrize("bad", [{"metrics_url": "127.0.0.1:30000/metrics"}, {"metrics_interval_s": 0},
                                 {"dcgm_url": "ftp://x/metrics"}])
def test_bad_values_are_refused(bad):
    with pytest.raises(pydantic.ValidationError):
        Host(name="box", **bad)
