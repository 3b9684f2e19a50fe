#!/usr/bin/env python3
"""Rooms by feature (issue 22, item 4): move cockpit's modules into feature folders, re-runnably.

    python tools/rooms.py            # apply: git mv, __init__.py files, every reference rewritten
    python tools/rooms.py --dry-run  # say what would move and which files would change
    python tools/rooms.py --check    # exit 1: a folder over 15 flat modules, a module over 400 lines
    python tools/rooms.py --tree     # the layout after the move, one line per folder (docs/architecture.md's rooms)

Why a script and not a commit: other branches change the same files while this is planned.
The script holds the whole mapping (LAYOUT below) and can be run again after any merge: a
module already moved is left alone, an import of an OLD path that a merge brought in is
rewritten, a module it does not know is left where it is and listed. A second run changes
nothing. Stdlib only.

What it rewrites, in cockpit/, tests/, benchmarks/, .ci/, README.md, pyproject.toml and
every other *.md / *.toml / *.cfg / *.ini / *.sh / *.tcss in the repository:
- `import cockpit.x.y`, `from cockpit.x.y import ...`, and `from cockpit.x import y` (split
  when the names mix modules and attributes; a renamed module keeps its local name by `as`);
- any dotted text `cockpit.x.y` (monkeypatch targets, `-m` runs, import-linter contracts,
  mypy overrides, docs);
- file paths `cockpit/x/y.py` and `x/y.py` (room-relative, as the docs write them), .tcss too;
- relative imports inside cockpit/ (made absolute first);
- `Path(__file__).parents[N]` / `.parent.parent` in a moved module, by how much deeper it sits;
- a few known edits (PATCHES): the layer contract and mypy's strict list learn the two new
  rooms, the hygiene tests walk sub-packages.
Each module's sibling .tcss moves with it (CSS_PATH / DEFAULT_CSS are `Path(__file__)`-relative).

Two rooms are new, both on the layer contract:
- `cockpit/ground/`: the sanitizer (was parse/sanitize.py) and redaction (was model/redact.py),
  the bottom layer every room may import (store's exception for the sanitizer is then moot).
- `cockpit/demo/`: the demo in ONE room (sources/demo*.py and live/demo_fleet.py). It imports
  sources (replays) and live (the real FleetFeed over a replay), and only cli imports it, so
  it sits beside control, above live and sources: one room, and no arrow points up. (Split
  into sources/demo + live/demo it would need two rooms for one feature.)

Manual steps left (not automatable, or a decision for a person):
1. docs/architecture.md "The rooms": paste `python tools/rooms.py --tree` and re-word the room lines.
2. (done) ui/render is Textual-free: gpu_render.Palette takes the theme's `role_style` from the
   widget that draws (it parses colours with Textual), and pyproject's contract "ui/render/ is
   pure Rich" forbids textual, ui.widgets, ui.screens and the app modules there (item 5).
3. Modules over 400 lines (`--check` lists them) are split by hand.
4. tests/unit/<room>/ stays one folder per layer (tests are found by pytest, not imported by
   path); move tests into feature folders later if wanted.
5. A module listed as "unknown, left in place" (added by a branch after this map was made):
   add it to LAYOUT (one word in its room's list) and run the script again.
6. Import order: a rewritten import keeps its line, so blocks may be out of isort order; if
   ruff is in CI by then, `ruff check --select I --fix cockpit tests benchmarks`.
7. Prose that names a module without `cockpit.` / `cockpit/` or a room folder (`widgets/x.py`,
   "ui.widgets.x") is not rewritten; grep the docs for the old names listed by --dry-run.

Measured on this checkout (2 shared cores): the apply takes about 2 s (127 `git mv`, 30
packages, 289 files rewritten); lint-imports, mypy and the whole test suite pass after it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

MAX_FLAT = 15
MAX_LINES = 400

# package -> {room: (what the room holds, [module or "old_module:new_name", ...])}
# A room "." lists the modules that stay flat in the package (so that a module nobody
# mapped is noticed). Module names are relative to the package; a module from another
# package is written in full ("cockpit.live.demo_fleet:fleet").
LAYOUT: dict[str, dict[str, tuple[str, list[str]]]] = {
    "cockpit.ground": {
        ".": ("ground every room may use: the one sanitizer of untrusted text, secret redaction",
              ["cockpit.parse.sanitize", "cockpit.model.redact"]),
    },
    "cockpit.model": {
        ".": ("what a session is: pydantic models (experiment records apart), ids, integrity, "
              "the campaign timeline, drift",
              ["session", "enums", "ids", "integrity", "log_view", "timeline", "launch_confirm",
               "package_drift", "prom_match", "strict", "package_versions", "host_fix",
               "finding_decisions", "experiment_records"]),
        "edit": ("changing a session: the editor (its core, board and setup edits) + undo, journal words, "
                 "lookup, three-way merge",
                 ["edits", "editor_core", "board_edits", "setup_edits", "history", "journal_text", "lookup",
                  "merge"]),
        "bench": ("benchmarks as numbers: targets scored, chart series, profile compare and diff",
                  ["targets", "bench_series:series", "bench_compare:compare", "profile_diff", "sweep_dataset"]),
        "search": ("a launch-space search: its record, space, scoring and edits",
                   ["search", "search_space:space", "search_scoring:scoring", "search_edits:edits", "objectives", "pareto",
                    "search_shrunk:shrunk", "search_features:features"]),
    },
    "cockpit.cli": {
        ".": ("the command line: the parser (__init__), the TUI's lazy start, stderr made inert",
              ["open_tui", "recent", "os_errors", "inert_stderr", "mcp_cmd"]),
        "session": ("commands on a session file: check/fmt/export/add, new, diff, drift, timeline",
                    ["session_cmds:file_cmds", "new_cmd", "diff_cmd", "drift_cmd", "timeline_cmd", "add_sweep"]),
        "watch": ("commands that read the live world: tail, log, parse-log, gpus/topo, metrics, fleet",
                  ["tail_cmd", "log_cmds", "log_tui_cmd", "target_args", "gpu_cmds", "metrics_cmd",
                   "fleet_cmd", "diagnose_cmd"]),
        "experiment": ("commands that run things: run / stop a launch profile, sweep",
                       ["run_cmds", "sweep_cmd", "tune_cmd"]),
    },
    "cockpit.store": {
        ".": ("TOML load/save, limits, locks, signatures, exports",
              ["atomic_write", "cli_load", "errors", "export_json", "exposure", "limits",
               "locate", "lock", "migrations", "redact", "signature", "toml_store", "search_lock"]),
        "handoff": ("the Markdown handoff: the document, its Searches section, a front of several objectives",
                    ["handoff_md:markdown", "handoff_search:search", "handoff_front:front"]),
    },
    "cockpit.control": {
        ".": ("who changes a session and runs things, no Textual: the controller, the one transaction, the experiment service",
              ["session_controller", "session_port", "transaction", "diagnosis", "experiment",
               "experiment_sweep", "experiment_types", "live_access", "pools"]),
    },
    "cockpit.assistant": {
        ".": ("`cockpit mcp`: the session as an MCP server",
              ["inputs", "live_state", "live_resources", "live_figures", "mcp_server", "views", "watch",
               "diagnosis_tools"]),
    },
    "cockpit.parse": {
        ".": ("text -> facts shared by several readers: numbers, user patterns, the version probe",
              ["numbers", "greater_than", "user_pattern", "version_probe"]),
        "log": ("SGLang log lines -> events, patterns, error labels, the parse-log summary engines",
                ["sglang_log", "sglang_patterns", "log_events:events", "batch_lines", "error_labels",
                 "log_summary:summary", "log_summary_fast:summary_fast", "log_summary_values:summary_values",
                 "log_summary_hs:summary_hs", "log_summary_scan:summary_scan"]),
        "gpu": ("GPU text -> samples: nvidia-smi CSV, topo -m, dcgm-exporter, GPU event types",
                ["gpu_sample:sample", "gpu_events:events", "nvsmi_query", "nvsmi_topo", "topo_affinity", "dcgm_metrics"]),
        "metrics": ("Prometheus exposition text, histograms, SGLang's /metrics, scrape events",
                    ["prom_text", "prom_histogram", "sglang_metrics", "metrics_events:events"]),
        "bench": ("bench_serving's result block and its JSONL records",
                  ["bench_serving", "bench_result_jsonl:result_jsonl"]),
    },
    "cockpit.sources": {
        ".": ("the live world's feeds for the app: which feeds a session needs, kept in step",
              ["feeds", "host_feeds", "host_feeds_plan", "session_feeds", "input_file", "live_feed"]),
        "transport": ("getting there: SSH pool and targets, host keys, HTTP over any stream, "
                      "remote commands, the one Python child",
                      ["ssh_pool", "ssh_target", "host_keys", "host_events", "http_get", "remote_run",
                       "child_process"]),
        "log": ("following a log: the resumable tail, its buffers and events, the log feed",
                ["log_tail:tail", "tail_buffers", "tail_events", "log_feed:feed", "tail_sources", "tail_remote",
                 "log_batch:batch", "log_openers:openers"]),
        "gpu": ("GPUs: NVML locally, one nvidia-smi stream per remote host, the GPU feeds",
                ["nvml_sampler", "nvml_mapping", "nvsmi_stream", "gpu_feed:feed"]),
        "metrics": ("`/metrics` scrapes and PromQL over Prometheus's HTTP API",
                    ["metrics_scrape:scrape", "prometheus_api"]),
        "server": ("the SGLang server on its host: start/stop/find, the version probe, drift, "
                   "the confirmation key",
                   ["server_control:control", "version_probe", "drift_check", "confirm_key", "bench_hosts",
                    "server_places:places", "server_scripts:scripts", "server_results:results"]),
    },
    "cockpit.live": {
        ".": ("what events add up to: the live hub (one feed per kind@host), its routes, alerts, data age",
              ["alerts", "data_age", "hub", "routes"]),
        "log": ("a log parsed once and folded once (in a child process), its items and metrics",
                ["log_pipeline", "log_items:items", "log_metrics:metrics", "fold_process", "metrics_snapshot"]),
        "gpu": ("GPU power over time, the headroom, tokens per joule",
                ["power_history"]),
        "metrics": ("a server's /metrics folded into what the metrics pane shows, and its series",
                    ["server_metrics", "server_metrics_series"]),
        "experiment": ("launches and sweeps: lifecycle, server runs, the sweep plan, runner, watch",
                       ["launch_lifecycle", "launch_watch", "server_runs", "sweep_plan", "sweep_runner",
                        "sweep_runs", "sweep_server_metrics", "sweep_session", "sweep_watch",
                        "sweep_events", "sweep_sink", "sweep_client_output"]),
        "fleet": ("the fleet through Prometheus, and the session's Prometheus sources",
                  ["fleet", "fleet_sources", "fleet_queries", "fleet_snapshot", "fleet_model"]),
    },
    "cockpit.demo": {
        ".": ("`cockpit --demo`: the example session fed by replays of recorded logs, GPUs, "
              "/metrics and PromQL",
              ["cockpit.sources.demo:build", "cockpit.sources.demo_replay:replay",
               "cockpit.sources.demo_metrics:metrics", "cockpit.sources.demo_fleet:prom_replay",
               "cockpit.live.demo_fleet:fleet"]),
    },
    "cockpit.ui": {
        ".": ("Textual only: the app (and its parts: live feeds, saving), its port for screens, messages, "
              "toasts, the terminal driver",
              ["app", "app_base", "app_live", "app_saving", "gc_settle", "log_app", "log_confirm", "messages",
               "safe_text", "stop_words", "terminal_driver", "port", "toasts", "focus_now"]),
        "live": ("what the app follows: the live routes, experiment and search runs, the findings watch",
                 ["experiment", "live_routes:routes", "search_runs", "diagnosis_live:diagnosis"]),
        "theme": ("colour themes: files, roles, Textual themes",
                  ["themes", "theme_file:schema", "theme_roles:roles"]),
        "keys": ("the action registry, the command palette, your own keymap",
                 ["actions", "commands", "keymap_file"]),
        "render": ("pure Rich renderers, no Textual (cli may import these, never ui.widgets)",
                   ["cockpit.ui.widgets.fleet_render:fleet", "cockpit.ui.widgets.gpu_render:gpu",
                    "cockpit.ui.widgets.gpu_spark", "cockpit.ui.widgets.metrics_render:metrics",
                    "cockpit.ui.widgets.topology_render:topology", "gpu_columns", "gpu_notes"]),
    },
    "cockpit.ui.screens": {
        ".": ("modal screens: details, compare, search, findings, failure text, help, prompts",
              ["bench_detail", "compare", "confirm_quit", "confirm_quit_sweep", "confirm_run", "file_detail",
               "help", "prompt", "failure_text", "findings", "search"]),
        "main": ("the main screen and what it owns: tabs and panes, rendering, view state, the tick, "
                 "the intent handlers",
                 ["main:screen", "tabs_and_panes", "session_render", "view_state", "live_tick", "edit_runner",
                  "task_handlers", "record_handlers", "setup_handlers"]),
        "forms": ("forms: the base, record forms, setup, sweep and search forms",
                  ["form_base:base", "forms:records", "setup_forms:setup", "sweep_form", "search_form",
                   "benchmark_form"]),
    },
    "cockpit.ui.widgets": {
        "log": ("the log pane: its ring buffer, line view, metrics strip",
                ["log_pane:pane", "log_pane_keys:pane_keys", "log_pane_messages:pane_messages", "log_view:view",
                 "log_buffer:buffer", "log_metrics_strip:metrics_strip"]),
        "gpu": ("the GPU and topology panes", ["gpu_pane:pane", "topology_pane"]),
        "metrics": ("the server /metrics pane", ["metrics_pane:pane"]),
        "fleet": ("the Fleet tab", ["fleet_pane:pane"]),
        "session": ("tabs rendered from the session: tasks, discoveries, benchmarks + chart, "
                    "profiles, records, setup, banner, targets",
                    ["task_board", "discoveries_view", "benchmarks_view", "bench_chart", "profiles_view",
                     "records_view", "setup_view", "text_views", "banner", "targets_strip", "list_detail",
                     "restorable"]),
        "chrome": ("the frame around them: header, tab bar, run status, host deck, data age, redraws",
                   ["header", "tab_bar", "run_status", "host_deck", "age_mark", "redraw_once"]),
    },
}

# Known edits after the rewrite: (file, old text, new text); applied when `old` is there and
# `new` is not, so a second run, or a file that already has it, is left alone.
PATCHES: list[tuple[str, str, str]] = [
    ("pyproject.toml", '    "cockpit.control",\n    "cockpit.live | cockpit.store",',
     '    "cockpit.control | cockpit.demo",\n    "cockpit.live | cockpit.store",'),
    ("pyproject.toml", '    "cockpit.parse | cockpit.model",\n]',
     '    "cockpit.parse | cockpit.model",\n    "cockpit.ground",\n]'),
    ("pyproject.toml", '    "cockpit.assistant",\n]\nforbidden_modules = ["textual"]',
     '    "cockpit.assistant",\n    "cockpit.demo",\n    "cockpit.ground",\n]\nforbidden_modules = ["textual"]'),
    ("pyproject.toml", '"cockpit.parse.*"]\ndisallow_untyped_defs',
     '"cockpit.parse.*", "cockpit.ground.*"]\ndisallow_untyped_defs'),
    ("tests/unit/test_import_hygiene.py",
     'found += [f"cockpit.{room}.{m.name}" for m in pkgutil.iter_modules([str(PACKAGE / room)])]',
     'found += [m.name for m in pkgutil.walk_packages([str(PACKAGE / room)], prefix=f"cockpit.{room}.")]'),
    ("tests/unit/test_import_hygiene.py",
     'ROOMS = ("model", "store", "parse", "sources", "live", "control", "cli", "assistant")',
     'ROOMS = ("model", "store", "parse", "sources", "live", "control", "cli", "assistant", "demo", "ground")'),
    ("tests/unit/test_import_hygiene_parse.py", "assert rooms <= {'parse', 'live', 'cli'}, rooms",
     "assert rooms <= {'parse', 'live', 'cli', 'ground'}, rooms"),
]

TEXT_SUFFIXES = {".py", ".toml", ".md", ".cfg", ".ini", ".sh", ".tcss", ".txt", ".yml", ".yaml", ".json"}
SKIP_DIRS = {".git", ".venv", "__pycache__", "node_modules", "__snapshots__", ".mypy_cache",
             ".pytest_cache", ".import_linter_cache", "data", "sessions", "themes", "out", "_data",
             "build", "dist"}
SELF = {"tools/rooms.py", "tests/unit/test_rooms_script.py"}  # they name old paths on purpose


@dataclass
class Plan:
    moves: dict[str, str]                  # old dotted -> new dotted
    packages: dict[str, str]               # new package -> what it holds
    keep: set[str]                         # dotted modules that stay where they are
    scan: list[str] = field(default_factory=list)  # packages whose unmapped modules are listed
    children: dict[str, set[str]] = field(default_factory=dict)  # new package -> its child names

    def __post_init__(self) -> None:
        for new in list(self.moves.values()) + list(self.keep) + list(self.packages):
            parent, _, name = new.rpartition(".")
            self.children.setdefault(parent, set()).add(name)


def build_plan(layout: dict[str, dict[str, tuple[str, list[str]]]]) -> Plan:
    moves: dict[str, str] = {}
    packages: dict[str, str] = {}
    keep: set[str] = set()
    for package, rooms in layout.items():
        for room, (about, modules) in rooms.items():
            target = package if room == "." else f"{package}.{room}"
            packages.setdefault(target, about)
            for entry in modules:
                old, _, new_name = entry.partition(":")
                old = old if "." in old else f"{package}.{old}"
                new = f"{target}.{new_name or old.rpartition('.')[2]}"
                if old == new:
                    keep.add(old)
                else:
                    if old in moves:
                        raise SystemExit(f"rooms: {old} is mapped twice")
                    moves[old] = new
    targets = list(moves.values()) + list(keep)
    if len(targets) != len(set(targets)):
        dup = sorted({t for t in targets if targets.count(t) > 1})
        raise SystemExit(f"rooms: two modules map to {dup}")
    return Plan(moves, packages, keep, sorted(set(layout) | set(packages)))


# --- rewriting text --------------------------------------------------------------------------

_NAME = r"[A-Za-z_]\w*"
_FROM = re.compile(
    rf"^(?P<indent>[ \t]*)from[ \t]+(?P<mod>cockpit(?:\.{_NAME})*)[ \t]+import[ \t]+"
    r"(?P<names>\([^)]*\)|(?:[^\n#\\]|\\\n)*)(?P<tail>[^\n]*)",
    re.M)
_DOTTED = re.compile(rf"(?<![\w.])cockpit(?:\.{_NAME})+")
_PATH = re.compile(r"(?<![\w/.\-])((?:[A-Za-z_]\w*/)+[A-Za-z_]\w*)\.(py|tcss)\b")


def _new_dotted(name: str, plan: Plan) -> str:
    """`name` with its longest old-module prefix replaced, unless it already names a new one."""
    parts = name.split(".")
    for cut in range(len(parts), 1, -1):
        prefix = ".".join(parts[:cut])
        if prefix in plan.moves:
            rest = parts[cut:]
            # `cockpit.live.fleet` is an old module AND the new package of live/fleet/:
            # `cockpit.live.fleet.fleet_sources` is already new, `...fleet.FleetFeed` is not.
            if rest and rest[0] in plan.children.get(prefix, ()):
                return name
            return ".".join([plan.moves[prefix], *rest])
    return name


def _split_names(names: str) -> list[tuple[str, str | None]]:
    body = names.strip()
    if body.startswith("("):
        body = body[1:-1]
    body = re.sub(r"#[^\n]*", "", body).replace("\\\n", " ")
    out = []
    for item in body.split(","):
        words = item.split()
        if not words:
            continue
        out.append((words[0], words[2] if len(words) == 3 and words[1] == "as" else None))
    return out


def _join(names: list[tuple[str, str | None]], indent: str = "", head: str = "") -> str:
    items = [n if a is None or a == n else f"{n} as {a}" for n, a in names]
    flat = ", ".join(items)
    if len(indent) + len(head) + len(flat) <= 110:
        return flat
    inner = indent + "    "
    return "(\n" + "".join(f"{inner}{item},\n" for item in items) + indent + ")"


def _rewrite_from(m: re.Match[str], plan: Plan) -> str:
    indent, mod, names, tail = m["indent"], m["mod"], m["names"], m["tail"]
    same = names + tail  # names and comment as written, for a statement whose names all stay
    if not names.startswith("("):  # the spaces before a comment stay with the comment
        tail = names[len(names.rstrip()):] + tail
    if names.strip() == "*":
        return f"{indent}from {_new_dotted(mod, plan)} import {same}"
    parsed = _split_names(names)
    kids = plan.children.get(mod, set())
    if mod in plan.moves:
        stay = [(n, a) for n, a in parsed if n in kids]
        if not stay:
            return f"{indent}from {plan.moves[mod]} import {same}"
        if len(stay) == len(parsed):  # already the new package's modules
            return m[0]
        go = [(n, a) for n, a in parsed if n not in kids]
        head = f"from {plan.moves[mod]} import "
        lines = [f"{indent}{head}{_join(go, indent, head)}"]
        lines += [f"{indent}from {mod} import {_join(stay)}"]
        return "\n".join(lines) + tail
    new_mod = _new_dotted(mod, plan)
    if new_mod != mod:
        return f"{indent}from {new_mod} import {same}"
    # `from cockpit.x import y`: y may be a module that moved (and maybe was renamed)
    moved = [(n, a) for n, a in parsed if f"{mod}.{n}" in plan.moves]
    if not moved:
        return m[0]
    rest = [(n, a) for n, a in parsed if f"{mod}.{n}" not in plan.moves]
    head = f"from {mod} import "
    lines = [f"{indent}{head}{_join(rest, indent, head)}"] if rest else []
    for n, a in moved:
        parent, _, base = plan.moves[f"{mod}.{n}"].rpartition(".")
        lines.append(f"{indent}from {parent} import {_join([(base, a or n)])}")
    return "\n".join(lines) + tail


def _rewrite_path(m: re.Match[str], plan: Plan) -> str:
    path, ext = m[1], m[2]
    full = path if path.startswith("cockpit/") else f"cockpit/{path}"
    dotted = full.replace("/", ".")
    if dotted not in plan.moves:
        return m[0]
    new = plan.moves[dotted].replace(".", "/")
    return f"{new if path.startswith('cockpit/') else new.removeprefix('cockpit/')}.{ext}"


def rewrite_text(text: str, plan: Plan) -> str:
    def one(m: re.Match[str]) -> str:
        if m["from"] is not None:
            return _rewrite_from(_FROM.match(m[0]), plan)  # type: ignore[arg-type]
        if m["dotted"] is not None:
            return _new_dotted(m["dotted"], plan)
        return _rewrite_path(_PATH.match(m["path"]), plan)  # type: ignore[arg-type]

    combined = re.compile(rf"(?P<from>{_FROM.pattern})|(?P<dotted>{_DOTTED.pattern})|(?P<path>{_PATH.pattern})",
                          re.M)
    return combined.sub(one, text)


def absolutize(text: str, module: str, is_package: bool) -> str:
    """`from .x import y` -> `from cockpit.room.x import y` (so the dotted rewrite sees it)."""
    package = module if is_package else module.rpartition(".")[0]

    def one(m: re.Match[str]) -> str:
        base = package.split(".")
        up = len(m[2]) - 1
        if up:
            base = base[:-up]
        target = ".".join(base + ([m[3]] if m[3] else []))
        return f"{m[1]}from {target} import "
    return re.sub(rf"^([ \t]*)from[ \t]+(\.+)({_NAME}(?:\.{_NAME})*)?[ \t]+import[ \t]+", one, text, flags=re.M)


def deepen(text: str, by: int) -> str:
    """A module `by` folders deeper: its `Path(__file__)` walks up that much further."""
    if by == 0:
        return text
    out = []
    for line in text.splitlines(keepends=True):
        if "__file__" in line:
            line = re.sub(r"\.parents\[(\d+)\]", lambda m: f".parents[{int(m[1]) + by}]", line)
            line = re.sub(r"(Path\(__file__\)(?:\.resolve\(\))?)((?:\.parent(?!s))+)",
                          lambda m: m[1] + m[2] + ".parent" * by if by > 0 else
                          m[1] + m[2][: len(m[2]) + by * len(".parent")], line)
        out.append(line)
    return "".join(out)


# --- the repository --------------------------------------------------------------------------

def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)


def _tracked(root: Path, path: Path) -> bool:
    return _git(root, "ls-files", "--error-unmatch", str(path.relative_to(root))).returncode == 0


def _file(root: Path, dotted: str) -> Path:
    return root.joinpath(*dotted.split(".")).with_suffix(".py")


def _move(root: Path, old: Path, new: Path, dry: bool) -> None:
    if dry:
        return
    new.parent.mkdir(parents=True, exist_ok=True)
    if _tracked(root, old):
        done = _git(root, "mv", str(old.relative_to(root)), str(new.relative_to(root)))
        if done.returncode != 0:
            raise SystemExit(f"rooms: git mv {old} {new}: {done.stderr.strip()}")
    else:
        old.rename(new)


def text_files(root: Path) -> list[Path]:
    found = []
    for here, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.startswith(".") or d == ".ci")
        for name in sorted(files):
            path = Path(here) / name
            rel = path.relative_to(root).as_posix()
            if rel in SELF:
                continue
            if path.suffix in TEXT_SUFFIXES or (path.parent.name == ".ci" and not path.suffix):
                found.append(path)
    return found


@dataclass
class Report:
    moved: list[tuple[str, str]] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    patched: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)


def apply(root: Path, plan: Plan, dry: bool = False) -> Report:
    report = Report()
    # 1. relative imports inside the package become absolute (before anything moves)
    pkg_root = root / plan_root(plan)
    for path in sorted(pkg_root.rglob("*.py")) if pkg_root.is_dir() else []:
        text = path.read_text(encoding="utf-8")
        rel = path.relative_to(root).with_suffix("")
        is_pkg = rel.name == "__init__"
        dotted = ".".join(rel.parts[:-1] if is_pkg else rel.parts)
        new = absolutize(text, dotted, is_pkg)
        if new != text and not dry:
            path.write_text(new, encoding="utf-8")
    # 2. moves: each module and its sibling .tcss
    for old, new in plan.moves.items():
        src, dst = _file(root, old), _file(root, new)
        if src.exists() and dst.exists() and src != dst:
            report.conflicts.append(f"{src.relative_to(root)} and {dst.relative_to(root)} both exist")
            continue
        if not src.exists():
            if not dst.exists():
                report.missing.append(old)
            continue
        depth = len(new.split(".")) - len(old.split("."))
        text = src.read_text(encoding="utf-8")
        _move(root, src, dst, dry)
        if not dry and deepen(text, depth) != text:
            dst.write_text(deepen(text, depth), encoding="utf-8")
        for sibling in src.parent.glob(src.stem + ".*"):
            if sibling.suffix in (".tcss",):
                _move(root, sibling, dst.with_suffix(sibling.suffix), dry)
        report.moved.append((old, new))
    # 3. every package has its __init__.py
    for package, about in sorted(plan.packages.items()):
        init = _file(root, package).with_suffix("") / "__init__.py"
        if not init.exists():
            report.created.append(init.relative_to(root).as_posix())
            if not dry:
                init.parent.mkdir(parents=True, exist_ok=True)
                init.write_text(f'"""{about[0].upper()}{about[1:]}."""\n', encoding="utf-8")
                if (root / ".git").exists():
                    _git(root, "add", str(init.relative_to(root)))
    # 4. every reference, in every text file
    for path in text_files(root):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite_text(text, plan)
        if new != text:
            report.changed.append(path.relative_to(root).as_posix())
            if not dry:
                path.write_text(new, encoding="utf-8")
    # 5. known edits
    for rel, old, new in PATCHES:
        path = root / rel
        if dry or not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        if old in text and new not in text:
            path.write_text(text.replace(old, new, 1), encoding="utf-8")
            report.patched.append(f"{rel}: {new.strip().splitlines()[-1][:60]}")
    # 6. modules nobody mapped, in the packages the layout covers
    known = set(plan.moves) | set(plan.moves.values()) | plan.keep | set(plan.packages)
    for package in plan.scan:
        folder = _file(root, package).with_suffix("")
        for path in sorted(folder.glob("*.py")) if folder.is_dir() else []:
            if path.stem != "__init__" and f"{package}.{path.stem}" not in known:
                report.unknown.append(path.relative_to(root).as_posix())
    return report


def plan_root(plan: Plan) -> str:
    return next(iter(plan.packages)).split(".")[0]


def check(root: Path, package: str = "cockpit") -> list[str]:
    problems = []
    for folder in sorted(p for p in (root / package).rglob("*") if p.is_dir() and p.name != "__pycache__"):
        flat = [p for p in folder.glob("*.py") if p.name != "__init__.py"]
        if len(flat) > MAX_FLAT:
            problems.append(f"{folder.relative_to(root)}/: {len(flat)} flat modules (over {MAX_FLAT})")
    for path in sorted((root / package).rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > MAX_LINES:
            problems.append(f"{path.relative_to(root)}: {lines} lines (over {MAX_LINES})")
    return problems


def tree(plan: Plan) -> str:
    lines = []
    for package in sorted(plan.packages):
        rel = package.replace(".", "/") + "/"
        lines.append(f"  {rel:<28} {plan.packages[package]}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--layout", type=Path, help="a JSON layout instead of the built-in one (tests)")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--tree", action="store_true")
    args = parser.parse_args(argv)
    layout = json.loads(args.layout.read_text()) if args.layout else LAYOUT
    layout = {p: {r: (a, list(m)) for r, (a, m) in rooms.items()} for p, rooms in layout.items()}
    plan = build_plan(layout)
    root = args.root.resolve()
    if args.tree:
        print(tree(plan))
        return 0
    if args.check:
        problems = check(root, plan_root(plan))
        print("\n".join(problems) or "rooms: every folder <= 15 flat modules, every module <= 400 lines")
        return 1 if problems else 0
    report = apply(root, plan, dry=args.dry_run)
    verb = "would " if args.dry_run else ""
    for old, new in report.moved:
        print(f"{verb}move  {old} -> {new}")
    for init in report.created:
        print(f"{verb}create {init}")
    for rel in report.changed:
        print(f"{verb}rewrite {rel}")
    for line in report.patched:
        print(f"patch  {line}")
    for line in report.missing:
        print(f"missing (neither old nor new file): {line}")
    for line in report.unknown:
        print(f"unknown, left in place: {line}")
    for line in report.conflicts:
        print(f"CONFLICT: {line}")
    if not (report.moved or report.created or report.changed or report.patched):
        print("rooms: nothing to do")
    return 2 if report.conflicts else 0


if __name__ == "__main__":
    sys.exit(main())
