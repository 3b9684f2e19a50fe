"""`cockpit mcp SESSION` as an assistant runs it: a subprocess spoken to over stdio by the
SDK's own client."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client, StdioServerParameters

from paths import DATA

from cockpit.store.toml_store import load_session


@pytest.fixture
def path(example_copy: Path) -> Path:
    return example_copy


def stdio_client(path: Path) -> Client:
    # the server inherits this environment (PYTHONPATH finds the checkout under test)
    return Client(StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(path)],
                                        env=dict(os.environ)))


async def test_a_client_session_over_stdio(path):
    async with stdio_client(path) as c:
        assert c.server_info is not None and c.server_info.name == "cockpit"
        uris = [str(r.uri) for r in (await c.list_resources()).resources]
        tools = [t.name for t in (await c.list_tools()).tools]
        prompts = [p.name for p in (await c.list_prompts()).prompts]
        moved = await c.call_tool("move_task", {"task_id": "t8", "to": "doing"})
        before = path.read_bytes()
        bad = await c.call_tool("add_discovery", {"claim": "x", "status": "proven"})
        unchanged = path.read_bytes() == before
        done = await c.call_tool("set_last_action", {"text": "moved t8", "next_step": "patch the .cuh"})
        handoff = (await c.read_resource("cockpit://session/handoff")).contents[0].text  # type: ignore[union-attr]
    assert "cockpit://session/handoff" in uris and "cockpit://session/tasks" in uris and len(uris) == 21
    assert "move_task" in tools and "add_target" in tools and len(tools) == 21
    assert prompts == ["resume-campaign", "record-what-you-did"]
    assert not moved.is_error and moved.content[0].text == "t8 moved to doing"  # type: ignore[union-attr]
    assert bad.is_error and "status" in bad.content[0].text and unchanged  # type: ignore[union-attr]
    assert not done.is_error
    in_progress = handoff.split("### In progress")[1].split("###")[0]
    assert "**t8** Fix allreduce fusion for SM120 properly" in in_progress
    assert "moved t8" in handoff and "**Next step:** patch the .cuh" in handoff
    assert load_session(path).journal[-1].text == "last action: moved t8; next: patch the .cuh (via assistant)"


async def test_100_tool_calls_from_two_clients_at_once_lose_nothing(path):
    async def one_client(name: str) -> list[str]:
        ids = []
        async with stdio_client(path) as c:
            for i in range(50):
                result = await c.call_tool("add_task", {"title": f"{name} {i}"})
                assert not result.is_error, result.content
                ids.append(result.content[0].text)  # type: ignore[union-attr]
        return ids

    results: dict[str, list[str]] = {}

    async def run(name: str) -> None:
        results[name] = await one_client(name)

    async with anyio.create_task_group() as group:
        group.start_soon(run, "a")
        group.start_soon(run, "b")
    session = load_session(path)
    titles = {t.title for t in session.tasks}
    assert {f"{n} {i}" for n in "ab" for i in range(50)} <= titles
    assert len(set(results["a"]) | set(results["b"])) == 100, "every call got its own id"
    assert sum(e.kind == "task.added" for e in session.journal) == 100


async def test_a_live_log_read_over_stdio_is_inert_and_shows_the_run(tmp_path):
    from cockpit.model.session import Host, Session
    from cockpit.store.toml_store import save_session

    log = tmp_path / "server.log"
    log.write_bytes(b"[2025-03-01 12:00:30] The server is fired up and ready to roll!\n"
                    b"[2025-03-01 12:00:31 TP0] Decode batch. #running-req: 12, #token: 5000, token usage: 0.30, "
                    b"gen throughput (token/s): 1234.50, #queue-req: 0\n"
                    b"[2025-03-01 12:00:32 TP0] evil \x1b]0;pwned\x07 \xe2\x80\xae end\n")
    path = tmp_path / "live.toml"
    save_session(Session(title="live", hosts=[Host(name="here", log_path=str(log))]), path)
    async with stdio_client(path) as c:
        text = ""
        for _ in range(100):
            text = (await c.read_resource("cockpit://session/live/log")).contents[0].text  # type: ignore[union-attr]
            if "end" in text:
                break
            await anyio.sleep(0.05)
        server = (await c.read_resource("cockpit://session/live/server")).contents[0].text  # type: ignore[union-attr]
    assert text.splitlines() == [f"# tail {log}", "# the last 3 lines; 3 log lines read",
                                 "[2025-03-01 12:00:30] The server is fired up and ready to roll!",
                                 "[2025-03-01 12:00:31 TP0] Decode batch. #running-req: 12, #token: 5000, token usage: "
                                 "0.30, gen throughput (token/s): 1234.50, #queue-req: 0",
                                 "[2025-03-01 12:00:32 TP0] evil ␛]0;pwned␇ <U+202E> end"]
    assert '"state": "ready"' in server and '"current": 1234.5' in server


def _serve(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cockpit", "mcp", str(path)], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=60)


def test_a_session_that_does_not_load_stops_it_at_start_with_the_position_and_writes_nothing(tmp_path):
    path = tmp_path / "bad.toml"
    shutil.copy(DATA / "broken" / "unknown_status.toml", path)
    before = sorted(p.name for p in tmp_path.iterdir()), path.read_bytes()
    done = _serve(path)
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.startswith(f"{path}:11:1: tasks[1].status")
    assert (sorted(p.name for p in tmp_path.iterdir()), path.read_bytes()) == before


def test_a_missing_session_is_an_error_not_a_new_file(tmp_path):
    done = _serve(tmp_path / "typo.toml")
    assert done.returncode == 1 and "typo.toml: no such session file" in done.stderr
    assert list(tmp_path.iterdir()) == []


async def test_ssh_config_and_known_hosts_options_reach_the_live_resources_hosts(tmp_path, sshd):
    """Over the real loopback sshd: the host is an alias only `--ssh-config` names, and its key
    is only in the `--known-hosts` file (the config names no known_hosts, HOME has none)."""
    from cockpit.model.session import Host, Session
    from cockpit.store.toml_store import save_session

    home = tmp_path / "home"
    home.mkdir()
    config = tmp_path / "mcp_ssh_config"
    config.write_text(f"Host mcp-loop\n  HostName {sshd.host}\n  Port {sshd.port}\n  User {sshd.username}\n"
                      f"  IdentityFile {sshd.client_key}\n  IdentitiesOnly yes\n  BatchMode yes\n")
    data = sshd.make_dir("mcp-options")
    (data / "server.log").write_text("[2025-03-01 12:00:30] The server is fired up and ready to roll!\n"
                                     "[2025-03-01 12:00:31] over ssh end\n")
    os.chmod(data / "server.log", 0o644)
    path = tmp_path / "live.toml"
    save_session(Session(title="live", hosts=[Host(name="gpu1", ssh="mcp-loop", log_path=str(data / "server.log"))]),
                 path)

    async def live_log(*options: str) -> str:
        params = StdioServerParameters(command=sys.executable, args=["-m", "cockpit", "mcp", str(path), *options],
                                       env={**os.environ, "HOME": str(home), "SSH_AUTH_SOCK": ""})
        text = ""
        async with Client(params) as c:
            for _ in range(100):
                text = (await c.read_resource("cockpit://session/live/log")).contents[0].text  # type: ignore[union-attr]
                if "end" in text or "unknown" in text.lower():
                    break
                await anyio.sleep(0.1)
        return text

    text = await live_log("--ssh-config", str(config), "--known-hosts", sshd.known_hosts)
    assert text.splitlines()[0] == f"# tail mcp-loop:{data / 'server.log'}"
    assert text.splitlines()[-1] == "[2025-03-01 12:00:31] over ssh end", text
    without = await live_log("--ssh-config", str(config))  # the key is nowhere else: refused, said in words
    assert "over ssh end" not in without and "unknown" in without.lower(), without


async def test_a_listener_over_stdio_hears_a_change_made_by_cockpit_add(path):
    async with stdio_client(path) as c:
        async with c.listen(resource_subscriptions=["cockpit://session/tasks"]) as sub:
            await anyio.sleep(1.0)  # the watch has taken its first look
            added = await anyio.run_process([sys.executable, "-m", "cockpit", "add", "task", str(path),
                                             "from the shell"], check=False)
            assert added.returncode == 0, added.stderr
            with anyio.fail_after(15):
                event = await sub.__anext__()
        tasks = (await c.read_resource("cockpit://session/tasks")).contents[0].text  # type: ignore[union-attr]
    assert str(event.uri) == "cockpit://session/tasks"  # type: ignore[union-attr]
    assert "from the shell" in tasks
