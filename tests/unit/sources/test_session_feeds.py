"""A session's hosts become the live feeds the TUI runs (one SSH pool for all of them)."""

from cockpit.model.session import Session
from cockpit.sources.gpu_feed import NvmlFeed, NvmlTopologyFeed, NvsmiFeed, RemoteTopologyFeed
from cockpit.sources.log_feed import LogFeed
from cockpit.sources.session_feeds import sources_for_session
from cockpit.sources.ssh_pool import SshPool


def test_a_session_without_live_hosts_has_no_feeds():
    sources = sources_for_session(Session(hosts=[{"name": "laptop"}]))
    assert sources.items() == [] and sources.host_events is None


def test_a_remote_host_gets_a_log_tail_and_an_nvidia_smi_stream_on_one_pool():
    session = Session(hosts=[{"name": "gpu1", "ssh": "me@gpu1:2222", "log_path": "/var/log/sglang.log",
                              "gpu_source": "nvidia-smi", "gpu_interval_s": 2.0}])
    sources = sources_for_session(session)
    assert isinstance(sources.log, LogFeed) and "me@gpu1:2222:/var/log/sglang.log" in sources.log.description
    assert isinstance(sources.gpu, NvsmiFeed) and isinstance(sources.topology, RemoteTopologyFeed)
    assert isinstance(sources.host_events, SshPool)
    assert sources.gpu.pool is sources.host_events and sources.gpu.interval_ms == 2000


def test_local_gpus_and_a_local_log_need_no_ssh():
    session = Session(hosts=[{"name": "box", "log_path": "/tmp/server.log", "gpu_source": "nvml"}])
    sources = sources_for_session(session)
    assert isinstance(sources.log, LogFeed) and sources.log.description == "tail /tmp/server.log"
    assert isinstance(sources.gpu, NvmlFeed) and isinstance(sources.topology, NvmlTopologyFeed)
    assert sources.host_events is None
