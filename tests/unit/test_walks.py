"""The walks of issues #22 and #38 stay one-way: a log line, a GPU sample, a key press, a sweep
point, a search trial, a finding (in the TUI, over MCP, from files: one live state and one
input builder) and an MCP call, each followed through the modules it passes, read on the real import
graph (grimp, the graph import-linter builds; `if TYPE_CHECKING:` and function-level imports
count).

For every walk:
* each module named is real (a renamed or moved step fails here, not silently);
* **one way**: no module of the walk reaches a module of the walk in a higher layer (the
  layers are pyproject's import-linter contract, with ui's app > screens > widgets), not
  even through other modules; two of the same layer never reach each other both ways;
* **one walk**: each step is tied to the next by imports, either way (push or pull), or
  both are wired by another step (the app runs a source's feed on the hub; the session
  controller takes an edit and saves it).
"""

from __future__ import annotations

import itertools
import tomllib
from pathlib import Path

import grimp
import pytest

REPO = Path(__file__).resolve().parents[2]

WALKS: dict[str, list[str]] = {
    # tail -> LogFeed (parsed once) -> the pipeline's display rows -> hub (a LiveItem) -> the live state's fold
    # (below the UI) and the routing table -> app -> log pane
    "a log line": ["sources.log.tail", "sources.log.feed", "parse.log.sglang_log", "control.log_pipeline",
                   "live.log.items", "control.live_hub", "live.items", "live.state", "live.routes",
                   "ui.live.routes", "ui.app", "ui.widgets.log.pane", "ui.widgets.log.buffer"],
    # nvidia-smi's stream -> parsed samples -> the feed's events -> hub -> the live state's power fold
    # (tok/J) -> app -> GPU pane
    "a GPU sample": ["sources.gpu.nvsmi_stream", "parse.gpu.nvsmi_query", "parse.gpu.sample",
                     "parse.gpu.events", "sources.gpu.feed", "control.live_hub", "live.items", "live.state",
                     "live.gpu.power_history", "ui.app", "ui.widgets.gpu.pane"],
    # a binding -> the main screen's action -> its intent handler -> its edit runner -> the session
    # controller -> the edit -> the save
    "a key press": ["ui.app", "ui.keys.actions", "ui.screens.main.screen", "ui.screens.main.task_handlers",
                    "ui.screens.main.edit_runner", "control.session_controller", "model.edit.edits",
                    "store.toml_store"],
    # the TUI's intent -> the experiment service's one loop -> the runner -> the bench client and its result
    # -> the point's watch -> the session port (the open session's controller: saved by it, not the app)
    "a sweep point": ["ui.live.experiment", "control.experiment", "control.experiment_sweep",
                      "control.sweep_runner", "sources.server.bench_hosts", "parse.bench.bench_serving",
                      "live.experiment.sweep_watch", "control.session_port", "control.session_controller",
                      "store.toml_store"],
    # the search screen -> the tuner's loop -> its next config -> the trial on a server (the experiment
    # service's sweep) -> the trial's score -> the recorder -> the session file's transaction
    "a search trial": ["ui.screens.search", "control.search.loop", "control.search.plan", "control.search.study",
                       "control.search.server_trials", "control.experiment", "control.sweep_runner",
                       "model.search.scoring", "control.session_port", "control.transaction",
                       "store.toml_store"],
    # the hub's items -> the live state -> one snapshot -> the rules' input -> the rules -> a finding
    # -> the TUI's findings (and an assistant's, and `cockpit diagnose`'s: the next walks) -> a decision
    "a finding": ["control.live_hub", "live.state", "live.snapshot", "live.diagnosis.inputs", "live.diagnosis.engine",
                  "live.diagnosis.findings", "ui.live.diagnosis", "ui.screens.findings", "control.diagnosis",
                  "model.finding_decisions"],
    "a finding over MCP": ["assistant.mcp_server", "assistant.diagnosis_tools", "assistant.live_state", "live.state",
                           "live.snapshot", "live.diagnosis.inputs", "live.diagnosis.engine", "control.diagnosis",
                           "control.transaction", "store.toml_store"],
    "a finding from files": ["cli.watch.diagnose_cmd", "live.diagnosis.load", "live.snapshot", "live.diagnosis.inputs",
                             "live.diagnosis.engine", "control.diagnosis", "control.transaction"],
    # a tool call -> the one session transaction -> the edit -> the file; a live resource -> its state -> hub
    "an MCP call": ["assistant.mcp_server", "control.transaction", "model.edit.edits", "store.toml_store"],
    "an MCP live read": ["assistant.mcp_server", "assistant.live_resources", "assistant.live_state", "live.state",
                         "control.live_hub", "control.log_pipeline", "sources.log.feed"],
}

UI_ORDER = ("cockpit.ui.app", "cockpit.ui.screens", "cockpit.ui.widgets")
"""Inside ui (one layer of the contract): the app above the screens above the widgets."""


def _layers() -> list[list[str]]:
    """pyproject's layers contract, top first: each a list of its `|` siblings."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    layered = next(c for c in config["tool"]["importlinter"]["contracts"] if c["type"] == "layers")
    return [[name.strip() for name in layer.split("|")] for layer in layered["layers"]]


def _under(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def rank(module: str, layers: list[list[str]]) -> tuple[int, int]:
    """(layer from the top, place inside ui): smaller is higher."""
    top = next(i for i, layer in enumerate(layers) if any(_under(module, p) for p in layer))
    inner = next((i for i, p in enumerate(UI_ORDER) if _under(module, p)), 1)
    return top, inner if _under(module, "cockpit.ui") else 0


def arrows_against(graph: grimp.ImportGraph, walk: list[str], layers: list[list[str]]) -> list[str]:
    """What breaks one way: a lower module of the walk reaching a higher one, or a circle."""
    wrong = []
    for a, b in itertools.combinations(walk, 2):
        high, low = (a, b) if rank(a, layers) < rank(b, layers) else (b, a)
        if rank(a, layers) == rank(b, layers):
            if graph.chain_exists(importer=a, imported=b) and graph.chain_exists(importer=b, imported=a):
                wrong.append(f"{a} <-> {b}")
        elif graph.chain_exists(importer=low, imported=high):
            wrong.append(f"{low} -> {high} (up: {' -> '.join(graph.find_shortest_chain(low, high) or ())})")
    return wrong


def loose_steps(graph: grimp.ImportGraph, walk: list[str]) -> list[str]:
    """Steps not tied to the next: no import either way, and no other step importing both."""
    loose = []
    for a, b in itertools.pairwise(walk):
        tied = graph.chain_exists(importer=a, imported=b) or graph.chain_exists(importer=b, imported=a)
        wired = any(graph.chain_exists(importer=w, imported=a) and graph.chain_exists(importer=w, imported=b)
                    for w in walk if w not in (a, b))
        if not (tied or wired):
            loose.append(f"{a} .. {b}")
    return loose


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("cockpit")


@pytest.mark.parametrize("walk", list(WALKS))
def test_each_walk_goes_one_way_through_real_modules(graph: grimp.ImportGraph, walk: str) -> None:
    modules = [f"cockpit.{m}" for m in WALKS[walk]]
    layers = _layers()
    assert [m for m in modules if m not in graph.modules] == [], "a step of the walk is not a module"
    assert arrows_against(graph, modules, layers) == []
    assert loose_steps(graph, modules) == []


def test_the_check_sees_an_arrow_up_a_circle_and_a_loose_step() -> None:
    """The checks themselves, on a made-up graph: a widget importing the app, two live
    modules importing each other, a step tied to nothing."""
    layers = _layers()
    fake = grimp.ImportGraph()
    for m in ("cockpit.ui.app", "cockpit.ui.widgets.w", "cockpit.live.a", "cockpit.live.b", "cockpit.parse.p"):
        fake.add_module(m)
    fake.add_import(importer="cockpit.ui.app", imported="cockpit.ui.widgets.w")
    fake.add_import(importer="cockpit.ui.widgets.w", imported="cockpit.live.a")
    assert arrows_against(fake, ["cockpit.live.a", "cockpit.ui.widgets.w", "cockpit.ui.app"], layers) == []
    fake.add_import(importer="cockpit.ui.widgets.w", imported="cockpit.ui.app")
    assert arrows_against(fake, ["cockpit.ui.widgets.w", "cockpit.ui.app"], layers) == [
        "cockpit.ui.widgets.w -> cockpit.ui.app (up: cockpit.ui.widgets.w -> cockpit.ui.app)"]
    fake.add_import(importer="cockpit.live.a", imported="cockpit.live.b")
    fake.add_import(importer="cockpit.live.b", imported="cockpit.live.a")
    assert arrows_against(fake, ["cockpit.live.a", "cockpit.live.b"], layers) == ["cockpit.live.a <-> cockpit.live.b"]
    assert loose_steps(fake, ["cockpit.parse.p", "cockpit.live.a"]) == ["cockpit.parse.p .. cockpit.live.a"]
    assert rank("cockpit.ui.app", layers) < rank("cockpit.ui.screens.main.screen", layers) < rank(
        "cockpit.ui.widgets.log.pane", layers) < rank("cockpit.control.transaction", layers)
