"""Several session hosts at once, over real SSH: two loopback sshd servers (tests/sshd_fixture.py),
each with its own log and a stand-in nvidia-smi, feed the GPU pane and their own log panes;
a host added to the file while the app is open is connected; a host whose key was not
trusted connects after the key is accepted and `reconnect` is asked.

STAND-IN, NOT NVIDIA's nvidia-smi: `bin_dir/nvidia-smi` on each server is a /bin/sh script
written here that prints fixed `--query-gpu` CSV lines (N GPUs of W watts) every `-lms` ms.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sshd_fixture import LoopbackSshd
from tui_support import make_app, screen_text, until

from cockpit.model.session import Host
from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS
from cockpit.sources.session_feeds import sources_for_session
from cockpit.store.toml_store import load_session, save_session
from cockpit.ui.widgets.chrome.host_deck import HostDeck
from cockpit.ui.widgets.gpu.pane import GpuPane
from cockpit.ui.widgets.log.pane import LogPane

NVSMI = r"""#!/bin/sh
# STAND-IN nvidia-smi for cockpit's tests: fixed figures, not NVIDIA's tool.
case "$*" in *"topo -m"*) exit 0 ;; esac
ms=""; prev=""
for a in "$@"; do [ "$prev" = "-lms" ] && ms="$a"; prev="$a"; done
while :; do
  i=0
  while [ "$i" -lt __N__ ]; do
    echo "2026/11/28 21:00:00.000, $i, NVIDIA H200, GPU-$i, __W__.00, 700.00, 50, 20, 1000, 143771, 40, 1500, 1980, 5, 5, 16, 16, 0x0000000000000000" || exit 0
    i=$((i + 1))
  done
  [ -z "$ms" ] && exit 0
  sleep "$(awk "BEGIN{print $ms/1000}")"
done
"""  # noqa: E501 - the stand-in prints real nvidia-smi rows, whole
assert NVSMI.split("echo ")[1].count(",") == len(QUERY_FIELDS) - 1  # one cell per queried field


class Node:
    """One loopback sshd standing for a GPU host: a log file and N GPUs of W watts."""

    def __init__(self, name: str, gpus: int, watts: int) -> None:
        self.name = name
        self.sshd = LoopbackSshd()
        self.sshd.start()
        script = self.sshd.bin_dir / "nvidia-smi"
        script.write_text(NVSMI.replace("__N__", str(gpus)).replace("__W__", str(watts)))
        os.chmod(script, 0o755)
        self.log = self.sshd.make_dir("logs") / "server.log"
        self.write(f"[2026-11-28 21:00:00] {name}: server started")

    def write(self, line: str) -> None:
        with self.log.open("a", encoding="utf-8") as f:
            f.write(line + "\n")
        os.chmod(self.log, 0o644)

    def config(self, alias: str, known_hosts: str | None = None) -> str:
        s = self.sshd
        return (f"Host {alias}\n  HostName {s.host}\n  Port {s.port}\n  User {s.username}\n"
                f"  IdentityFile {s.client_key}\n  IdentitiesOnly yes\n"
                f"  UserKnownHostsFile {known_hosts or s.known_hosts}\n  BatchMode yes\n")

    def host(self, name: str | None = None, **extra: object) -> Host:
        return Host(name=name or self.name, ssh=name or self.name, log_path=str(self.log),
                    gpu_source="nvidia-smi", gpu_interval_s=0.3, **extra)


@pytest.fixture(scope="module")
def nodes():
    made = [Node("node1", gpus=2, watts=300), Node("node2", gpus=1, watts=400)]
    yield made
    for node in made:
        node.sshd.close()


@pytest.fixture
def ssh_config(nodes, tmp_path: Path) -> tuple[Path, Path]:
    """One ssh_config naming node1, node2, and `fresh` (node1's server with a known_hosts
    that does not know its key yet); returns (config, fresh's known_hosts)."""
    untrusted = tmp_path / "known_hosts_fresh"
    untrusted.write_text("")
    path = tmp_path / "ssh_config"
    path.write_text(nodes[0].config("node1") + nodes[1].config("node2") + nodes[0].config("fresh", str(untrusted)))
    return path, untrusted


def session_file(tmp_path: Path, example_path: Path, hosts: list[Host]) -> Path:
    session = load_session(example_path)
    session = session.model_copy(update={"hosts": hosts})
    save_session(session, example_path)
    return example_path


def log_deck(app) -> HostDeck:  # noqa: ANN001
    return app.main_screen.query_one("#log-deck", HostDeck)


def log_texts(pane: LogPane) -> list[str]:
    return pane.buffer.tail_texts(50)


def gpu_hosts(app) -> set:  # noqa: ANN001
    return {s.host for s in app.main_screen.query_one(GpuPane).samples}


async def test_two_hosts_feed_the_gpu_pane_and_their_own_logs(nodes, ssh_config, example_path, tmp_path):
    config, _ = ssh_config
    path = session_file(tmp_path, example_path, [nodes[0].host(), nodes[1].host()])
    app = make_app(path, sources=sources_for_session(load_session(path), ssh_config=(str(config),)))
    async with app.run_test(size=(160, 50)) as pilot:
        deck = log_deck(app)
        await until(lambda: gpu_hosts(app) == {"node1", "node2"}, pilot, timeout=30)
        await until(lambda: all(any(f"{n}: server started" in t for t in log_texts(deck.panes[n]))
                                for n in ("node1", "node2")), pilot, timeout=30)
        # each host's log in its own pane: node1's lines are not in node2's
        assert not any("node1" in t for t in log_texts(deck.panes["node2"])), log_texts(deck.panes["node2"])
        gpu = app.main_screen.query_one(GpuPane)
        assert sorted((s.host, s.index) for s in gpu.samples) == [("node1", 0), ("node1", 1), ("node2", 0)]
        await until(lambda: "node1 connected" in screen_text(app) and "node2 connected" in screen_text(app),
                    pilot, timeout=10)
        # a total per host and for all (drawn on the pane's next refresh)
        await until(lambda: "node1 Σ 600 W of 1400 W 43%" in screen_text(app), pilot, timeout=10)
        text = screen_text(app)
        assert "node1 Σ 600 W of 1400 W 43%" in text and "node2 Σ 400 W of 700 W 57%" in text
        assert "1000 W of 2100 W" in text
        # the log pane switches between the hosts with one key; the strip says which
        assert deck.current == "node1" and deck.shown is deck.panes["node1"]
        assert "H Next host" in text.splitlines()[-1]  # in the footer, with two hosts
        nodes[1].write("[2026-11-28 21:00:05] node2: only here")
        await pilot.press("H")
        await pilot.pause()
        assert deck.current == "node2" and deck.panes["node2"].display and not deck.panes["node1"].display
        await until(lambda: "node2: only here" in screen_text(app), pilot, timeout=10)
        await pilot.press("H")
        assert deck.current == "node1"
        # one SSH connection per host serves its log, GPUs and topology
        pool = app.sources.hosts.pool
        assert len([h for h in pool._hosts.values() if h.conn is not None]) == 2


async def test_a_host_added_to_the_file_while_open_is_connected(nodes, ssh_config, example_path, tmp_path):
    config, _ = ssh_config
    path = session_file(tmp_path, example_path, [nodes[0].host()])
    app = make_app(path, sources=sources_for_session(load_session(path), ssh_config=(str(config),)))
    async with app.run_test(size=(160, 50)) as pilot:
        await until(lambda: gpu_hosts(app) == {"node1"}, pilot, timeout=30)
        assert "node2" not in screen_text(app)
        # another writer (a shell, `cockpit` elsewhere) adds node2 to the file
        on_disk = load_session(path)
        save_session(on_disk.model_copy(update={"hosts": [*on_disk.hosts, nodes[1].host()]}), path)
        await app.saving.check_disk()
        await until(lambda: gpu_hosts(app) == {"node1", "node2"}, pilot, timeout=30)
        deck = log_deck(app)
        await until(lambda: "node2" in deck.panes and any("node2: server started" in t
                                                          for t in log_texts(deck.panes["node2"])), pilot, timeout=30)
        await until(lambda: "node2 connected" in screen_text(app), pilot, timeout=10)
        # and removed again: its feeds stop, its GPUs and log pane go
        on_disk = load_session(path)
        save_session(on_disk.model_copy(update={"hosts": on_disk.hosts[:1]}), path)
        await app.saving.check_disk()
        await pilot.pause(0.5)
        assert gpu_hosts(app) == {"node1"} and "node2" not in deck.panes
        assert not [w for w in app.workers if w.group.startswith("live-") and w.group.endswith("@node2")
                    and not w.is_finished]
        assert "node2" not in app.host_states


async def test_reconnect_after_the_host_key_is_accepted(nodes, ssh_config, example_path, tmp_path):
    config, untrusted = ssh_config
    path = session_file(tmp_path, example_path, [nodes[0].host("fresh")])
    app = make_app(path, sources=sources_for_session(load_session(path), ssh_config=(str(config),)))
    async with app.run_test(size=(160, 50)) as pilot:
        deck = log_deck(app)
        # the key is not known: nothing connects, and the header says what to do
        await until(lambda: "fresh" in app.host_states and app.host_states["fresh"].startswith("disconnected"),
                    pilot, timeout=30)
        await pilot.pause(0.5)
        assert gpu_hosts(app) == set() and not any("server started" in t for t in log_texts(deck.shown))
        # the person checks the key and accepts it (as `ssh` would write it) ...
        untrusted.write_text(nodes[0].sshd.host_key_line)
        # ... and asks for a reconnect, from the palette's "hosts: Reconnect fresh" or `R`
        await pilot.press("R")
        await until(lambda: gpu_hosts(app) == {"fresh"}, pilot, timeout=30)
        await until(lambda: any("server started" in t for t in log_texts(deck.shown)), pilot, timeout=30)
        assert app.host_states["fresh"] == "connected"
