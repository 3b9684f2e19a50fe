"""The diagnosis for assistants: a resource with the open findings (over the session and
what its hosts' feeds hold now) and tools to dismiss or accept one.

An assistant may dismiss a finding, and may accept one: the discovery it makes is tagged
"via assistant" and journaled "(via assistant)", its status is hypothesis like every
accepted finding, and the person sees it (and `u` undoes it) in the TUI. Confirming a
discovery stays a separate step (set_discovery_status), never part of accepting.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.mcpserver.exceptions import ToolError

from cockpit.assistant import views
from cockpit.assistant.live_state import LiveState
from cockpit.control.diagnosis import accepting, dismissing
from cockpit.ground.sanitize import sanitize
from cockpit.live.diagnosis.engine import decided_keys, diagnose
from cockpit.live.diagnosis.findings import Finding
from cockpit.live.diagnosis.inputs import inputs_of
from cockpit.model.session import Session


async def open_findings(feeds: LiveState, session: Session,
                        settle: Callable[[str], Awaitable[Any]]) -> tuple[list[Finding], list[str]]:
    """Findings not decided yet, and what the reading lacked (said beside them)."""
    notes = []
    for name in ("log", "gpu", "topology"):
        if await settle(name) is None:
            notes.append(f"no {name} feed: the session's hosts have none")
    await settle("metrics")  # a host without metrics_url has none: nothing to say of it
    inputs = inputs_of(feeds.snapshot(), session)  # the TUI's findings build theirs so too
    return diagnose(inputs, decided=decided_keys(inputs)), notes


def register(server: Any, uri: str, feeds: LiveState, read: Callable[[], Session],
             write: Callable[[Callable[..., Any]], object], settle: Callable[[str], Awaitable[Any]],
             tool: Callable[[str], Callable[[Callable[..., Any]], object]]) -> None:
    async def current() -> tuple[Session, list[Finding], list[str]]:
        session = read()
        await feeds.ensure(session)
        found, notes = await open_findings(feeds, session, settle)
        return session, found, notes

    @server.resource(uri + "findings", name="findings", mime_type="application/json",
                     description="The diagnosis: evidence-backed hypotheses (kind, claim, evidence with its time "
                                 "range, benchmark ids, log lines and GPUs, confidence, next experiment, key) over "
                                 "the session's benchmarks and its hosts' log, GPUs and topology now; and the "
                                 "findings already accepted or dismissed.")
    async def findings() -> str:
        session, found, notes = await current()
        return views.as_json({"findings": [f.to_dict() for f in found], "notes": notes,
                              "decided": [d.model_dump(mode="json") for d in session.findings]})

    async def pick(key: str) -> Finding:
        _, found, _ = await current()
        finding = next((f for f in found if f.key == key), None)
        if finding is None:
            raise ToolError(f"key: no open finding {key!r} (read cockpit://session/findings for the keys)")
        return finding

    @tool("Dismiss a diagnosis finding by its key: it is remembered in the session and not proposed again "
          "for the same evidence.")
    async def dismiss_finding(key: str) -> str:
        finding = await pick(key)
        write(dismissing(finding))
        return sanitize(f"dismissed: {finding.claim}")  # a claim may quote a benchmark's label

    @tool("Accept a diagnosis finding by its key as a discovery (status hypothesis, its evidence attached, its "
          "benchmarks linked, tagged 'via assistant'); returns the discovery's id. It does not confirm it.")
    async def accept_finding(key: str) -> str:
        finding = await pick(key)
        return str(write(accepting(finding)))
