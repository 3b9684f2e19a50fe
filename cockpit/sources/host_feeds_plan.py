"""Which live feeds a session's hosts need, and what to stop and start when the hosts change.

Plain data, no I/O, no Textual. The app plans on start and after every change to the
session (an edit in the app, another writer's save merged in); `diff_plans(old, new)`
says which feeds to stop and which to start, and the app does exactly that.

A feed is keyed `kind@host` (kinds: log, gpu, topology, metrics). Its `config` holds
the host fields that feed depends on, so editing a host's log path restarts its log feed
only, while changing its `ssh` or `jump` restarts all of that host's feeds.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cockpit.model.session import Host

KINDS = ("log", "gpu", "topology", "metrics")
LOCAL_GPU_SOURCES = ("nvml",)
"""GPU sources that read this machine's GPUs (nvidia-smi without `ssh` too)."""


@dataclass(frozen=True, slots=True)
class FeedSpec:
    kind: str
    host: str
    config: tuple[tuple[str, object], ...]
    """The host fields the feed is built from; a change to any of them restarts it."""

    @property
    def key(self) -> str:
        return feed_key(self.kind, self.host)


@dataclass(frozen=True, slots=True)
class PlanChange:
    stop: tuple[str, ...] = ()
    """Keys of running feeds to stop: the host went, no longer asks for it, or changed."""
    start: tuple[FeedSpec, ...] = ()
    """Feeds to start (new ones, and changed ones after their old feed stopped)."""
    hosts_added: tuple[str, ...] = ()
    hosts_removed: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.stop or self.start or self.hosts_added or self.hosts_removed)


Plan = dict[str, FeedSpec]


def feed_key(kind: str, host: str | None) -> str:
    return kind if host is None else f"{kind}@{host}"


def split_key(key: str) -> tuple[str, str | None]:
    """`log@gpu1` -> ("log", "gpu1"); a fixed feed's `log` -> ("log", None)."""
    kind, at, host = key.partition("@")
    return kind, (host if at else None)


def _gpu_source(host: Host) -> str:
    source = getattr(host, "gpu_source", "none")
    return str(getattr(source, "value", source) or "none")


def is_local_gpu(host: Host) -> bool:
    """This machine's GPUs: NVML, or nvidia-smi named for a host without `ssh`."""
    source = _gpu_source(host)
    return source in LOCAL_GPU_SOURCES or (source == "nvidia-smi" and not getattr(host, "ssh", None))


def plan_feeds(hosts: Sequence[Host]) -> Plan:
    """The feeds `hosts` (session `Host`s, in session order) ask for, by key.

    * a log for every host with `log_path` or `log_command`;
    * GPUs for every host with a GPU source; this machine's GPUs once (the first host that
      names them), since two hosts reading the same local GPUs would count them twice;
    * the topology of the first host with GPUs it can be asked for (dcgm-exporter has none):
      the GPU pane's NUMA column is filled by GPU index, which only one host can own;
    * the server's `/metrics` for every host with `metrics_url`.
    """
    plan: Plan = {}
    local_gpus = False
    topology = False
    for host in hosts:
        name = host.name
        link = (("ssh", host.ssh), ("jump", getattr(host, "jump", None)))
        specs: list[FeedSpec] = []
        if host.log_path or host.log_command:
            fields: tuple[tuple[str, object], ...] = (*link, ("log_path", host.log_path), ("log_command", host.log_command))
            if host.log_command:  # a confirmation given restarts the feed (then it runs)
                fields = (*fields, ("log_confirmed", getattr(host, "log_confirmed", None)))
            specs.append(FeedSpec("log", name, fields))
        source = _gpu_source(host)
        if source != "none" and not (is_local_gpu(host) and local_gpus):
            local_gpus = local_gpus or is_local_gpu(host)
            specs.append(FeedSpec("gpu", name, (*link, ("gpu_source", source),
                                                ("gpu_interval_s", host.gpu_interval_s),
                                                ("dcgm_url", getattr(host, "dcgm_url", None)))))
            if source != "dcgm" and not topology:
                topology = True
                specs.append(FeedSpec("topology", name, (*link, ("gpu_source", source))))
        if getattr(host, "metrics_url", None):
            specs.append(FeedSpec("metrics", name, (*link, ("metrics_url", host.metrics_url),
                                                    ("metrics_interval_s", getattr(host, "metrics_interval_s", None)))))
        for spec in specs:
            plan[spec.key] = spec
    return plan


def diff_plans(old: Plan, new: Plan, old_hosts: Iterable[str] = (), new_hosts: Iterable[str] = ()) -> PlanChange:
    """What to stop and start to go from `old` to `new` (host names: for the header)."""
    stop = tuple(k for k, spec in old.items() if new.get(k) != spec)
    start = tuple(spec for k, spec in new.items() if old.get(k) != spec)
    before, after = list(old_hosts), list(new_hosts)
    return PlanChange(stop, start, tuple(h for h in after if h not in before),
                      tuple(h for h in before if h not in after))


def feeds_of_host(plan: Plan, host: str) -> tuple[FeedSpec, ...]:
    """Every feed of `host`: what a reconnect restarts."""
    return tuple(spec for spec in plan.values() if spec.host == host)


def hosts_with(plan: Plan, *kinds: str) -> list[str]:
    """Hosts with a feed of one of `kinds`, in plan (session) order, each once."""
    return list(dict.fromkeys(spec.host for spec in plan.values() if spec.kind in kinds))


def next_in(items: Sequence[str], current: str | None, step: int = 1) -> str | None:
    """The item after `current` (wrapping); the first when `current` is not there."""
    if not items:
        return None
    if current not in items:
        return items[0]
    return items[(items.index(current) + step) % len(items)]
