"""Messages of the cockpit UI, named for what happened.

Widgets post intents (`...Requested`) and never touch the session; the main screen
turns each intent into one SessionEditor call. Live feeds post `LiveItemReceived`.
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.message import Message

from cockpit.live.items import LiveItem
from cockpit.model.enums import TaskStatus


# ----- task board ----------------------------------------------------------------------
@dataclass
class TaskAddRequested(Message):
    status: TaskStatus


@dataclass
class TaskEditRequested(Message):
    task_id: str


@dataclass
class TaskDeleteRequested(Message):
    task_id: str


@dataclass
class TaskMoveRequested(Message):
    task_id: str
    step: int
    """+1 = next column, -1 = previous column."""


@dataclass
class TaskReorderRequested(Message):
    task_id: str
    step: int
    """-1 = up, +1 = down within its column."""


@dataclass
class TaskLinkRequested(Message):
    task_id: str


@dataclass
class TaskReviewAcknowledged(Message):
    task_id: str


# ----- discoveries -----------------------------------------------------------------------
@dataclass
class DiscoveryAddRequested(Message):
    pass


@dataclass
class DiscoveryEditRequested(Message):
    discovery_id: str


@dataclass
class DiscoveryStatusCycleRequested(Message):
    discovery_id: str


# ----- benchmarks and launch profiles ------------------------------------------------------
@dataclass
class BenchmarkAddRequested(Message):
    pass


@dataclass
class BenchmarkEditRequested(Message):
    benchmark_id: str


@dataclass
class BenchmarkDeleteRequested(Message):
    benchmark_id: str


@dataclass
class ProfileMarkWorkingRequested(Message):
    profile_id: str


@dataclass
class ProfileCopyRequested(Message):
    profile_id: str


# ----- handoff ---------------------------------------------------------------------------
@dataclass
class HandoffWriteRequested(Message):
    pass


@dataclass
class HandoffCopyRequested(Message):
    pass


@dataclass
class RecordAddRequested(Message):
    collection: str  # files | packages | launch
    copy_of: str | None = None
    """A record whose fields fill the new one's form (a launch profile copied to change a flag)."""


@dataclass
class RecordEditRequested(Message):
    collection: str
    ident: str


@dataclass
class RecordDeleteRequested(Message):
    collection: str
    ident: str


@dataclass
class FileDetailRequested(Message):
    ident: str


@dataclass
class BenchmarkDetailRequested(Message):
    """Enter on a Benchmarks row: the record in full, read-only (`e` from there edits)."""

    ident: str


@dataclass
class DriftCheckRequested(Message):
    """Compare the recorded package versions with what the hosts run now; `record`: then take
    the changed ones as the record (`cockpit drift --record`)."""

    record: bool = False


# ----- live feeds -----------------------------------------------------------------------------
@dataclass
class LiveItemReceived(Message):
    """One item (a batch of lines, a GPU sample, a topology; live/items.py) from a live feed."""

    feed: str
    item: LiveItem


@dataclass
class LiveFeedStopped(Message):
    """A live feed ended or failed; the pane shows it instead of looking idle."""

    feed: str
    reason: str


# ----- the experiment loop (launch tab) --------------------------------------------------------
@dataclass
class ServerStartRequested(Message):
    profile_id: str
    restart: bool = False


@dataclass
class ServerStopRequested(Message):
    profile_id: str


# ----- compare ----------------------------------------------------------------------------------
@dataclass
class CompareRequested(Message):
    """Open the compare screen: `base` (else the working profile) against `selected`."""

    selected: str | None
    base: str | None = None
    metric: str | None = None


# ----- the campaign's setup (Goal tab) -------------------------------------------------------
@dataclass
class SetupAddRequested(Message):
    kind: str  # target | instruction | host


@dataclass
class SetupEditRequested(Message):
    kind: str  # goal | target | instruction | host
    ident: str  # a target's or instruction's id, a host's name ("goal" for the goal)


@dataclass
class SetupDeleteRequested(Message):
    kind: str
    ident: str


@dataclass
class InstructionMoveRequested(Message):
    ident: str
    step: int
