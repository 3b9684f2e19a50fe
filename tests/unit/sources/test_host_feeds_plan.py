"""Which feeds a session's hosts need, and what changes when the host list changes."""

from cockpit.model.session import Session
from cockpit.sources.host_feeds_plan import (
    diff_plans,
    feeds_of_host,
    hosts_with,
    next_in,
    plan_feeds,
    split_key,
)


def hosts(*specs: dict):  # noqa: ANN201
    return Session(hosts=list(specs)).hosts


A = {"name": "a", "ssh": "me@gpu1", "log_path": "/a.log", "gpu_source": "nvidia-smi"}
B = {"name": "b", "ssh": "me@gpu2", "log_path": "/b.log", "gpu_source": "nvidia-smi",
     "metrics_url": "http://127.0.0.1:30000/metrics"}


def test_every_host_gets_its_own_feeds_and_one_topology():
    plan = plan_feeds(hosts(A, B, {"name": "idle"}))
    assert list(plan) == ["log@a", "gpu@a", "topology@a", "log@b", "gpu@b", "metrics@b"]
    assert hosts_with(plan, "log") == ["a", "b"] and hosts_with(plan, "metrics") == ["b"]
    assert split_key("log@b") == ("log", "b") and split_key("log") == ("log", None)


def test_local_gpus_are_read_once_and_dcgm_has_no_topology():
    plan = plan_feeds(hosts({"name": "x", "gpu_source": "nvml"}, {"name": "y", "gpu_source": "nvidia-smi"},
                            {"name": "z", "ssh": "z", "gpu_source": "dcgm"}))
    assert list(plan) == ["gpu@x", "topology@x", "gpu@z"]


def test_an_unchanged_session_changes_nothing():
    plan = plan_feeds(hosts(A, B))
    change = diff_plans(plan, plan_feeds(hosts(A, B)), ["a", "b"], ["a", "b"])
    assert not change


def test_a_host_added_starts_its_feeds_only():
    old = plan_feeds(hosts(A))
    change = diff_plans(old, plan_feeds(hosts(A, B)), ["a"], ["a", "b"])
    assert change.stop == () and [s.key for s in change.start] == ["log@b", "gpu@b", "metrics@b"]
    assert change.hosts_added == ("b",) and change.hosts_removed == ()


def test_a_host_removed_stops_its_feeds_and_hands_the_topology_on():
    change = diff_plans(plan_feeds(hosts(A, B)), plan_feeds(hosts(B)), ["a", "b"], ["b"])
    assert change.stop == ("log@a", "gpu@a", "topology@a")
    assert [s.key for s in change.start] == ["topology@b"] and change.hosts_removed == ("a",)


def test_an_edited_log_path_restarts_the_log_only_and_a_new_ssh_restarts_all():
    moved = {**A, "log_path": "/elsewhere.log"}
    change = diff_plans(plan_feeds(hosts(A)), plan_feeds(hosts(moved)))
    assert change.stop == ("log@a",) and [s.key for s in change.start] == ["log@a"]
    relinked = {**A, "ssh": "me@gpu9"}
    change = diff_plans(plan_feeds(hosts(A)), plan_feeds(hosts(relinked)))
    assert change.stop == ("log@a", "gpu@a", "topology@a")
    assert [s.key for s in change.start] == ["log@a", "gpu@a", "topology@a"]
    dropped = {**A, "gpu_source": "none"}
    change = diff_plans(plan_feeds(hosts(A)), plan_feeds(hosts(dropped)))
    assert change.stop == ("gpu@a", "topology@a") and change.start == ()


def test_a_reconnect_restarts_every_feed_of_the_host():
    plan = plan_feeds(hosts(A, B))
    assert [s.key for s in feeds_of_host(plan, "b")] == ["log@b", "gpu@b", "metrics@b"]


def test_the_log_pane_cycles_through_hosts():
    assert next_in(["a", "b", "c"], "a") == "b" and next_in(["a", "b", "c"], "c") == "a"
    assert next_in(["a", "b"], None) == "a" and next_in([], "a") is None
    assert next_in(["a", "b", "c"], "a", -1) == "c"
