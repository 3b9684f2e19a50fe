"""A session's hosts become the live feeds the TUI runs (one SSH pool for all of them)."""

from cockpit.model.session import Session
from cockpit.sources.gpu.feed import NvmlFeed, NvmlTopologyFeed, NvsmiFeed, RemoteTopologyFeed
from cockpit.sources.log.feed import LogFeed
from cockpit.sources.metrics.scrape import MetricsFeed
from cockpit.sources.session_feeds import sources_for_session
from cockpit.sources.transport.ssh_pool import SshPool


def test_a_session_without_live_hosts_has_no_feeds():
    session = Session(hosts=[{"name": "laptop"}])
    sources = sources_for_session(session)
    assert sources.items() == [] and sources.hosts.update(session.hosts).feeds == {}
    assert sources.hosts._pool is None  # nothing to connect to: no pool, no asyncssh


def test_a_remote_host_gets_a_log_tail_and_an_nvidia_smi_stream_on_one_pool():
    session = Session(hosts=[{"name": "gpu1", "ssh": "me@gpu1:2222", "log_path": "/var/log/sglang.log",
                              "gpu_source": "nvidia-smi", "gpu_interval_s": 2.0,
                              "metrics_url": "http://127.0.0.1:30000/metrics"}])
    sources = sources_for_session(session)
    feeds = sources.hosts.update(session.hosts).feeds
    assert sorted(feeds) == ["gpu@gpu1", "log@gpu1", "metrics@gpu1", "topology@gpu1"]
    log, gpu, topo, metrics = feeds["log@gpu1"], feeds["gpu@gpu1"], feeds["topology@gpu1"], feeds["metrics@gpu1"]
    assert isinstance(log, LogFeed) and "me@gpu1:2222:/var/log/sglang.log" in log.description
    assert isinstance(gpu, NvsmiFeed) and isinstance(topo, RemoteTopologyFeed)
    assert isinstance(metrics, MetricsFeed) and metrics.target is not None
    pool = sources.hosts.pool
    assert isinstance(pool, SshPool) and gpu.pool is pool and topo.pool is pool and metrics.pool is pool
    assert gpu.interval_ms == 2000


def test_local_gpus_and_a_local_log_need_no_ssh():
    session = Session(hosts=[{"name": "box", "log_path": "/tmp/server.log", "gpu_source": "nvml"}])
    sources = sources_for_session(session)
    feeds = sources.hosts.update(session.hosts).feeds
    assert isinstance(feeds["log@box"], LogFeed) and feeds["log@box"].description == "tail /tmp/server.log"
    assert isinstance(feeds["gpu@box"], NvmlFeed) and isinstance(feeds["topology@box"], NvmlTopologyFeed)
    assert sources.hosts._pool is None


def test_the_pool_events_name_every_host_entry_of_a_machine():
    session = Session(hosts=[{"name": "a", "ssh": "me@gpu1", "log_path": "/a.log"},
                             {"name": "b", "ssh": "me@gpu1", "log_path": "/b.log"},
                             {"name": "c", "ssh": "gpu2", "jump": "me@gpu1", "log_path": "/c.log"},
                             {"name": "d", "ssh": "gpu3", "log_path": "/d.log"}])
    hosts = sources_for_session(session).hosts
    hosts.update(session.hosts)
    # c is reached through gpu1: gpu1 going down concerns it too
    assert hosts.hosts_for_label("me@gpu1") == ["a", "b", "c"]
    assert hosts.hosts_for_label("gpu3") == ["d"]
