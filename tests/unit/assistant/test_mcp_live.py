"""`cockpit mcp`'s live resources through the SDK's client (in memory): a session whose
host tails a log (a local file, or one over the real loopback sshd with a stand-in
nvidia-smi), a host that cannot be reached, a session without hosts.

STAND-IN, NOT NVIDIA's nvidia-smi: `bin_dir/nvidia-smi` is a /bin/sh script written here.
It prints two GPUs' `--query-gpu` CSV lines every `-lms` ms and the corpus paste 056 for
`topo -m`.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import socket
from pathlib import Path

import pytest
from mcp import Client

from paths import CORPUS
from sshd_fixture import ALIAS

from cockpit.assistant.live_state import LiveState
from cockpit.assistant.mcp_server import build_server
from cockpit.model.session import Host, Session
from cockpit.parse.gpu.nvsmi_query import QUERY_FIELDS
from cockpit.store.toml_store import save_session

HOSTILE = (b"[2025-03-01 12:00:40 TP0] evil \x1b]52;c;ZXZpbA==\x07\x1b]0;pwned\x07 nul\x00 "
           b"bidi\xe2\x80\xaeevil\xe2\x80\xac \xff\xfe end\n")
LOG = (b"[2025-03-01 12:00:00] server_args=ServerArgs(model_path='/models/GLM-5', served_model_name='glm5', "
       b"api_key='sk-live-123', tp_size=8)\n"
       b"[2025-03-01 12:00:30] The server is fired up and ready to roll!\n"
       + b"".join(f"[2025-03-01 12:00:{31 + i} TP0] Decode batch. #running-req: {10 + i}, #token: 5000, "
                  f"token usage: 0.{i + 1}0, gen throughput (token/s): {800 + 100 * i:.2f}, #queue-req: 2\n".encode()
                  for i in range(3))
       + HOSTILE)


def session_file(tmp_path: Path, *hosts: Host) -> Path:
    path = tmp_path / "s.toml"
    save_session(Session(title="live", hosts=list(hosts)), path)
    return path


async def read(c: Client, name: str) -> str:
    result = await asyncio.wait_for(c.read_resource(f"cockpit://session/{name}"), 30)  # a guard against a hang
    return result.contents[0].text  # type: ignore[union-attr]


async def read_until(c: Client, name: str, check, tries: int = 200) -> str:  # noqa: ANN001
    text = ""
    for _ in range(tries):
        text = await read(c, name)
        if check(text):
            return text
        await asyncio.sleep(0.05)
    raise AssertionError(f"{name} never matched:\n{text}")


def inert(text: str) -> bool:
    return not any(ch in text for ch in ("\x1b", "\x07", "\x00", "\u202e", "\u202c"))


async def test_a_local_log_is_read_inert_redacted_and_followed(tmp_path):
    log = tmp_path / "server.log"
    log.write_bytes(LOG)
    path = session_file(tmp_path, Host(name="here", log_path=str(log)))
    async with Client(build_server(path)) as c:
        text = await read_until(c, "live/log", lambda t: "end" in t)
        two = await read(c, "live/log/2")
        server = json.loads(await read_until(c, "live/server", lambda t: '"ready"' in t))
        with log.open("ab") as f:  # the server goes on writing: the next read has it
            f.write(b"[2025-03-01 12:00:50 TP0] Decode batch. #running-req: 3, #token: 900, token usage: 0.05, "
                    b"gen throughput (token/s): 42.00, #queue-req: 0\n")
        later = await read_until(c, "live/log/1", lambda t: "42.00" in t)
        with pytest.raises(Exception, match="lines: a whole number from 1 to 2000"):
            await c.read_resource("cockpit://session/live/log/0")
    lines = text.splitlines()
    assert lines[0] == f"# tail {log}" and lines[1] == "# the last 6 lines; 6 log lines read"
    assert lines[3] == "[2025-03-01 12:00:30] The server is fired up and ready to roll!"
    assert inert(text) and "␛]52;c;ZXZpbA==␇" in text and "<U+202E>" in text, lines[-1]
    assert "sk-live-123" not in text and "api_key=[REDACTED]" in text
    assert two.splitlines()[1:] == ["# the last 2 lines; 6 log lines read", *lines[-2:]]
    assert server["run"] == {"index": 1, "state": "ready", "model": "glm5", "dp_ranks": 1, "last_error": None}
    assert server["metrics"]["gen_throughput"] == {"current": 1000.0, "peak": 1000.0}
    assert server["log"]["source"] == f"tail {log}"
    assert later.splitlines()[-1].endswith("gen throughput (token/s): 42.00, #queue-req: 0")


async def test_a_session_without_hosts_says_so_and_a_host_added_later_is_followed(tmp_path):
    path = session_file(tmp_path)
    async with Client(build_server(path)) as c:
        listed = {str(r.uri) for r in (await c.list_resources()).resources}
        templates = {t.uri_template for t in (await c.list_resource_templates()).resource_templates}
        empty = await read(c, "live/log")
        gpus = json.loads(await read(c, "live/gpus"))
        log = tmp_path / "late.log"
        log.write_bytes(LOG)
        session = Session(title="live", hosts=[Host(name="here", log_path=str(log))])
        save_session(session, path)  # as the TUI or a hand edit would
        followed = await read_until(c, "live/log", lambda t: "fired up" in t)
    assert {f"cockpit://session/live/{n}" for n in ("log", "server", "gpus", "topology")} <= listed
    assert templates == {"cockpit://session/live/log/{lines}"}
    assert empty.startswith("No log in this session: add a host with log_path or log_command")
    assert gpus["gpus"].startswith("No GPU source in this session")
    assert followed.startswith(f"# tail {log}")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


async def test_a_host_that_cannot_be_reached_is_said_in_words_and_no_read_hangs(tmp_path, monkeypatch):
    monkeypatch.setenv("SSH_AUTH_SOCK", "")
    gone = Host(name="gone", ssh=f"cockpit-test@127.0.0.1:{_free_port()}", log_path="/var/log/sglang.log",
                gpu_source="nvidia-smi")
    path = session_file(tmp_path, gone)
    async with Client(build_server(path, live=LiveState(first_wait_s=2.0))) as c:
        # the header's state and the separator line in the log arrive one after the other
        log = await read_until(c, "live/log", lambda t: "refused" in t.lower() and "── cockpit-test@127.0.0.1:" in t)
        # the GPU feed's words move between "refused" and its next attempt: wait for the reason
        gpus = json.loads(await read_until(c, "live/gpus", lambda t: any(
            "refused" in words.lower() for words in json.loads(t).get("hosts", {}).values())))
        topology = json.loads(await read(c, "live/topology"))
        server = json.loads(await read(c, "live/server"))
    assert log.startswith("# tail cockpit-test@127.0.0.1:") and "# no log lines: the host was not reached" in log
    assert "── cockpit-test@127.0.0.1:" in log and "connection refused" in log
    assert any("refused" in words.lower() for words in gpus.get("hosts", {}).values()), gpus
    assert gpus["gpus"] == [] and ("problem" in gpus or "not reached" in gpus.get("note", "")), gpus
    assert "topology" not in topology and topology["feed"]["source"].startswith("nvidia-smi topo -m"), topology
    assert server["run"] is None and server["log"]["connected"] is False


# ----- over the real loopback sshd -------------------------------------------------------------
STAND_IN = r"""#!/bin/sh
# STAND-IN nvidia-smi for cockpit's MCP test: recorded text, not NVIDIA's tool.
case "$*" in
  *"topo -m"*) cat __TOPO__; exit 0 ;;
esac
ms=1000; prev=""
for a in "$@"; do [ "$prev" = "-lms" ] && ms="$a"; prev="$a"; done
secs=$(awk "BEGIN{print $ms/1000}")
while :; do
  cat __TICK__ || exit 0
  sleep "$secs"
done
"""


def _tick() -> str:
    rows = []
    for index, power in ((0, 330.5), (1, 125.0)):
        values = {"timestamp": "2026/05/28 03:00:00.000", "index": index, "name": "NVIDIA RTX PRO 6000",
                  "power.draw": power, "enforced.power.limit": 600.0, "utilization.gpu": 97, "memory.used": 90000,
                  "memory.total": 97887, "temperature.gpu": 61, "clocks.sm": 2400, "clocks.max.sm": 2617,
                  "clocks_throttle_reasons.active": "0x0000000000000004"}
        rows.append(", ".join(str(values.get(f, "[N/A]")) for f in QUERY_FIELDS))
    return "\n".join(rows) + "\n"


@pytest.fixture
def remote_host(sshd, tmp_path, monkeypatch):
    """A host named by its ssh_config alias (read from ~/.ssh/config as cockpit does), with a
    log and the stand-in nvidia-smi on it."""
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    shutil.copyfile(sshd.ssh_config, home / ".ssh" / "config")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("SSH_AUTH_SOCK", "")
    data = sshd.make_dir("mcp")
    (data / "server.log").write_bytes(LOG)
    (data / "tick.csv").write_text(_tick())
    (data / "topo.txt").write_text((CORPUS / "nvidia-smi" / "056.txt").read_text())
    for f in data.iterdir():
        os.chmod(f, 0o644)
    script = sshd.bin_dir / "nvidia-smi"
    script.write_text(STAND_IN.replace("__TOPO__", str(data / "topo.txt")).replace("__TICK__", str(data / "tick.csv")))
    os.chmod(script, 0o755)
    yield Host(name="gpu1", ssh=ALIAS, log_path=str(data / "server.log"), gpu_source="nvidia-smi", gpu_interval_s=0.2)
    script.unlink(missing_ok=True)


async def test_a_remote_host_over_ssh_gives_its_log_gpus_with_power_of_limit_and_topology(tmp_path, remote_host):
    path = session_file(tmp_path, remote_host)
    async with Client(build_server(path)) as c:
        log = await read_until(c, "live/log", lambda t: "end" in t)
        gpus = json.loads(await read_until(c, "live/gpus", lambda t: '"power_of_limit"' in t))
        topology = json.loads(await read_until(c, "live/topology", lambda t: '"matrix"' in t))
        server = json.loads(await read_until(c, "live/server", lambda t: '"ready"' in t))
    assert log.splitlines()[0] == f"# tail {ALIAS}:{remote_host.log_path}"
    assert inert(log) and "␛]0;pwned␇" in log and "sk-live-123" not in log
    assert [g["power_of_limit"] for g in gpus["gpus"]] == ["330 W of 600 W (55%)", "125 W of 600 W (21%)"]
    assert gpus["total"] == "456 W of 1200 W (38%)" and gpus["host"] == "gpu1"
    assert gpus["gpus"][0]["throttle_reasons"] == ["sw_power_cap"]
    assert gpus["feed"]["source"] == "nvidia-smi on gpu1 every 0.2 s"
    expected = json.loads((CORPUS / "nvidia-smi" / "056.expect.json").read_text())
    assert topology["topology"]["matrix"] == expected["matrix"]
    assert server["run"]["state"] == "ready" and server["log"]["connected"] is True
