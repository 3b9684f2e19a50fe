"""What a session IS: the eight handoff sections plus what the live cockpit needs.

Plain pydantic v2; no I/O, no Textual. Field order here is the canonical order of the
TOML file, so keep related fields together and add new ones at the end of a model.
The experiment loop's records (launch profiles, sweeps, benchmarks) are experiment_records.py's.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AwareDatetime, Field, field_validator, model_validator

from cockpit.model.bench.figures import Figure, figure_of, format_value
from cockpit.model.enums import (
    Comparator,
    DiscoveryStatus,
    FileState,
    GpuSource,
    Metric,
    TaskStatus,
)
from cockpit.model.experiment_records import Benchmark as Benchmark  # re-exported: used across the rooms
from cockpit.model.experiment_records import LaunchProfile as LaunchProfile
from cockpit.model.experiment_records import Sweep as Sweep
from cockpit.model.log_view import LogViewState
from cockpit.model.search.search import Search
from cockpit.model.strict import PRIVATE_KEY_BLOCK as PRIVATE_KEY_BLOCK  # re-exported: older imports
from cockpit.model.strict import SECRET_KEY_NAMES as SECRET_KEY_NAMES
from cockpit.model.strict import Float, Int
from cockpit.model.strict import Id as Id
from cockpit.model.strict import Strict as Strict
from cockpit.model.strict import Text as Text
from cockpit.model.strict import now as now

SCHEMA_VERSION = 1
SYMBOL = {Comparator.GE: "≥", Comparator.GT: ">", Comparator.LE: "≤", Comparator.LT: "<"}


class Target(Strict):
    id: Id
    metric: Metric
    comparator: Comparator = Comparator.GE
    value: Float
    unit: str | None = None
    """Kept as older files hold it; what is shown is the figure's own unit (`figure.unit`)."""
    concurrency_min: Int | None = Field(default=None, ge=1)
    concurrency_max: Int | None = Field(default=None, ge=1)
    label: str | None = None

    @model_validator(mode="after")
    def _range_ordered(self) -> Target:
        if (
            self.concurrency_min is not None
            and self.concurrency_max is not None
            and self.concurrency_min > self.concurrency_max
        ):
            raise ValueError("concurrency_min is above concurrency_max")
        return self

    @property
    def figure(self) -> Figure:
        return figure_of(self.metric)

    def goal_text(self) -> str:
        """`TTFT p99 ≤ 2,000 ms`: the figure with its statistic, the comparator, the value, its unit."""
        fig = self.figure
        return f"{fig.name} {SYMBOL[self.comparator]} {format_value(self.value, fig.unit)}"

    def describe(self) -> str:
        text = self.goal_text()
        if self.concurrency_min is not None or self.concurrency_max is not None:
            lo = self.concurrency_min or 1
            hi = self.concurrency_max
            text += f" at concurrency {lo}..{hi}" if hi is not None else f" at concurrency >= {lo}"
        return text


class Goal(Strict):
    summary: str = ""
    model: str | None = None
    hardware: str | None = None
    targets: list[Target] = []


class Instruction(Strict):
    id: Id
    text: Text


class Discovery(Strict):
    id: Id
    claim: Text
    status: DiscoveryStatus = DiscoveryStatus.HYPOTHESIS
    evidence: str | None = None
    tags: list[str] = []
    benchmarks: list[Id] = []
    files: list[Id] = []
    tasks: list[Id] = []
    created: AwareDatetime | None = None
    updated: AwareDatetime | None = None


class Task(Strict):
    id: Id
    title: Text
    status: TaskStatus = TaskStatus.TODO
    order: Int = 0
    notes: str | None = None
    discoveries: list[Id] = []
    review: bool = False
    """Set when a linked discovery changed status; cleared when acknowledged."""
    created: AwareDatetime | None = None
    updated: AwareDatetime | None = None


class FileChange(Strict):
    id: Id
    path: Text
    host: str | None = None
    lines: str | None = None
    change: str | None = None
    state: FileState = FileState.APPLIED


class Package(Strict):
    id: Id
    name: Text
    version: Text
    host: str | None = None
    captured: AwareDatetime | None = None


class Activity(Strict):
    """An automatic step (a start, ready, a crash, a sweep's end) and what it suggests."""

    text: Text
    when: AwareDatetime | None = None
    next_step: str | None = None
    fallback: str | None = None


AUTO: Literal["auto"] = "auto"
"""`LastAction.by` of one an automatic step wrote (nobody has written one since)."""

LAST_ACTIONS_KEPT = 20


class LastAction(Strict):
    text: Text
    when: AwareDatetime | None = None
    next_step: str | None = None
    fallback: str | None = None
    by: Literal["auto"] | None = None
    """"auto" when an automatic step wrote it; unset: the words of a person (or their
    assistant), which no automatic step replaces."""
    activity: Activity | None = None
    """The latest automatic step since a person wrote this: beside their words, never over them."""


# Polling intervals (seconds between GPU samples, scrapes, queries): 1e-300 would busy-loop,
# 1e300 would never poll; both are typos, refused with the field's line.
MIN_INTERVAL_S = 0.05  # 20 polls a second at most (the sweep tests sample GPUs this fast)
MAX_INTERVAL_S = 86_400.0
# The autosave delay: 0 saves at once; else a pause a person notices (1e-300 is a typo of 0
# or of a number of seconds), and at most an hour of edits held unsaved.
MAX_AUTOSAVE_DELAY_S = 3_600.0
# The TUI's tabs (cockpit.ui.keys.actions.TABS, which a test keeps equal to this).
TABS = ("main", "goal", "discoveries", "benchmarks", "files", "packages", "launch", "last", "topology",
        "handoff", "fleet")


class Host(Strict):
    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]
    description: str | None = None
    ssh: str | None = None
    """An alias from ~/.ssh/config or [user@]host[:port]; empty for the local machine."""
    jump: str | None = None
    log_path: str | None = None
    log_command: str | None = None
    log_confirmed: str | None = None
    """A person's seal of `log_command` on this host (see `model.launch.confirm`): the command
    runs only once its seal verifies; set by the TUI's confirm dialog, never by a writer."""
    gpu_source: GpuSource = GpuSource.NONE
    gpu_interval_s: Float = Field(default=1.0, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)
    metrics_url: str | None = Field(default=None, pattern=r"^https?://")
    """The server's Prometheus endpoint as the host sees it (`http://127.0.0.1:30000/metrics`);
    read through the host's SSH connection when it has `ssh`."""
    metrics_interval_s: Float | None = Field(default=None, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)
    """Seconds between scrapes of `metrics_url` (unset: 5 s; optional so older files round-trip)."""
    dcgm_url: str | None = Field(default=None, pattern=r"^https?://")
    """dcgm-exporter's endpoint for `gpu_source = "dcgm"` (unset: http://127.0.0.1:9400/metrics)."""
    run_dir: str | None = None
    """Folder on the host for launched servers' PID files and logs (unset: ~/.cockpit/runs)."""


class PrometheusSource(Strict):
    """A Prometheus server that already scrapes the fleet (`[[prometheus]]`)."""

    name: Annotated[str, Field(pattern=r"^[A-Za-z0-9_.-]+$")]
    url: Annotated[str, Field(pattern=r"^https?://")]
    auth_env: str | None = Field(default=None, pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    """Name of an environment variable holding `user:password` or a bearer token (never the secret)."""
    interval_s: Float = Field(default=5.0, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)
    history_h: Float = Field(default=3.0, ge=1 / 3600, le=24 * 31)  # one second to a month
    match: dict[str, str] | str | None = None
    """Which targets are this fleet's: `{job = "sglang"}` or a selector string (model/prom_match.py).
    Not refused at load: a bad one is `cockpit check`'s error and the Fleet tab's message, so
    one regex never keeps the whole session from opening (`prom_match.match_problem`)."""
    rate_window_s: Float | None = Field(default=None, ge=MIN_INTERVAL_S, le=MAX_INTERVAL_S)
    """rate() / percentile window; unset: from the targets' scrape interval (sources/metrics/fleet_feed.py)."""



class JournalEvent(Strict):
    when: AwareDatetime
    kind: Text
    text: Text
    ref: str | None = None


class UiState(Strict):
    theme: str | None = None
    active_tab: str | None = None
    """One of TABS (a name the TUI does not know is refused: it cannot open on it)."""
    focused_pane: str | None = None
    selection: dict[str, str] = {}
    """Selected item id per list or board column (`tasks.todo` -> `t3`)."""
    scroll: dict[str, Int] = {}
    log: LogViewState = LogViewState()
    autosave: bool = True
    autosave_delay_s: Float = Field(default=2.0, ge=0, le=MAX_AUTOSAVE_DELAY_S)
    log_buffer_lines: Int = Field(default=50_000, ge=100, le=10_000_000)
    alert_bell: bool | None = None
    """Ring the terminal bell when an alert is raised (unset: off; unset keeps older files' bytes)."""

    @field_validator("autosave_delay_s")
    @classmethod
    def _zero_or_a_pause(cls, value: float) -> float:
        if 0 < value < MIN_INTERVAL_S:
            raise ValueError(f"{value:g} s: 0 saves at once; a delay is at least {MIN_INTERVAL_S:g} s")
        return value

    @field_validator("active_tab")
    @classmethod
    def _known_tab(cls, value: str | None) -> str | None:
        if value is not None and value not in TABS:
            raise ValueError(f"unknown tab {value!r}; the tabs are {', '.join(TABS)}")
        return value


class FindingDecision(Strict):
    """A person's answer to a diagnosis finding (`[[findings]]`), keyed by its evidence key:
    not proposed again for the same evidence."""

    key: Text
    kind: Text
    decision: Literal["accepted", "dismissed"]
    claim: Text
    discovery: Id | None = None
    """The discovery an accepted finding became."""
    by: str | None = None
    """Who decided when not the person at the terminal ("assistant")."""
    when: AwareDatetime | None = None


class Session(Strict):
    schema_version: int = SCHEMA_VERSION
    title: str = "untitled campaign"
    created: AwareDatetime | None = None
    goal: Goal = Goal()
    instructions: list[Instruction] = []
    discoveries: list[Discovery] = []
    tasks: list[Task] = []
    files: list[FileChange] = []
    packages: list[Package] = []
    launch: list[LaunchProfile] = []
    benchmarks: list[Benchmark] = []
    last_action: LastAction | None = None
    hosts: list[Host] = []
    journal: list[JournalEvent] = []
    ui: UiState = UiState()
    sweeps: list[Sweep] = []
    prometheus: list[PrometheusSource] = []
    last_actions: list[LastAction] = []
    """Earlier last actions, oldest first (the last `LAST_ACTIONS_KEPT`): what each new one replaced."""
    searches: list[Search] = []
    """Searches over launch configurations and their trials (model/search/search.py)."""
    findings: list[FindingDecision] = []
    """Diagnosis findings accepted or dismissed (live/diagnosis), by evidence key."""

    @field_validator("schema_version")
    @classmethod
    def _current_version(cls, value: int) -> int:
        if value != SCHEMA_VERSION:
            raise ValueError(f"schema_version {value} is not {SCHEMA_VERSION} (migrate it first)")
        return value

    @model_validator(mode="after")
    def _ids_unique_and_links_resolve(self) -> Session:
        from cockpit.model.integrity import check_integrity

        check_integrity(self)
        return self

    def best_total_tok_s(self, profile_id: str) -> float | None:
        """The profile's best point in total tok/s: the highest median over a concurrency's
        runs (never its luckiest run; model/bench/estimate.py). None: none recorded."""
        from cockpit.model.bench.estimate import per_profile_concurrency

        found = per_profile_concurrency([b for b in self.benchmarks if b.profile == profile_id],
                                        lambda b: b.total_tok_s)
        return max((e.median for e in found.values()), default=None)
