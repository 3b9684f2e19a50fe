"""The diagnosis over MCP: the findings resource, dismiss and accept as the assistant."""

from __future__ import annotations

import json
from pathlib import Path

from mcp import Client

from cockpit.assistant.mcp_server import build_server
from cockpit.store.toml_store import load_session


async def read_findings(c: Client) -> dict:
    result = await c.read_resource("cockpit://session/findings")
    return json.loads(result.contents[0].text)  # type: ignore[union-attr]


async def call(c: Client, tool: str, **args: object) -> tuple[bool, str]:
    result = await c.call_tool(tool, args)
    return result.is_error, result.content[0].text  # type: ignore[union-attr]


async def test_findings_are_listed_dismissed_and_accepted_via_assistant(example_copy: Path) -> None:
    async with Client(build_server(example_copy)) as c:
        first = await read_findings(c)
        keys = [f["key"] for f in first["findings"]]
        assert "regression:b2" in keys  # the seed's allreduce-fusion run, from the session alone
        reg = next(f for f in first["findings"] if f["key"] == "regression:b2")
        assert reg["evidence"][0]["benchmarks"] == ["b2"] and "236 output tok/s" in reg["evidence"][0]["text"]
        bad, said = await call(c, "accept_finding", key="regression:b2")
        assert not bad and said == "d8"
        bad, said = await call(c, "accept_finding", key="regression:b2")
        assert bad and "no open finding" in said
        after = await read_findings(c)
        assert "regression:b2" not in [f["key"] for f in after["findings"]]
        assert after["decided"][0]["by"] == "assistant"
    s = load_session(example_copy)
    d = next(d for d in s.discoveries if d.id == "d8")
    assert d.status == "hypothesis" and d.benchmarks == ["b2"] and "via assistant" in d.tags
    assert "236 output tok/s, down from 1,867" in (d.evidence or "")
    assert s.journal[-1].text.endswith("(via assistant)")


async def test_a_dismissed_finding_is_not_listed_again(example_copy: Path) -> None:
    async with Client(build_server(example_copy)) as c:
        bad, said = await call(c, "dismiss_finding", key="regression:b2")
        assert not bad and said.startswith("dismissed: b2")
        assert "regression:b2" not in [f["key"] for f in (await read_findings(c))["findings"]]
    assert [(d.key, d.decision) for d in load_session(example_copy).findings] == [("regression:b2", "dismissed")]
