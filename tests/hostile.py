"""Hostile text for the trust tests: the vectors, a session holding one in every text
field, and the check that a surface shows it inert.

A check counts what it verified per (vector, surface); with COCKPIT_HOSTILE_TALLY set to
a file, each count is appended there as a JSON line, and `tests/hostile_table.py` prints
the vectors x surfaces table from them.
"""

from __future__ import annotations

import json
import os
import re
from datetime import UTC, datetime, timedelta

from cockpit.ground.sanitize import sanitize
from cockpit.model.session import (
    Benchmark,
    Discovery,
    FileChange,
    Goal,
    Instruction,
    JournalEvent,
    LastAction,
    LaunchProfile,
    Package,
    Session,
    Target,
    Task,
)

VECTORS: dict[str, str] = {
    "OSC 0": "\x1b]0;x\x07",
    "OSC 2": "\x1b]2;pwned\x07",
    "OSC 52": "\x1b]52;c;aGVsbG8=\x07",
    "CSI 2J": "\x1b[2J",
    "DCS tmux": "\x1bPtmux;\x1b\x1b]0;pwn\x07\x1b\\",
    "C1 CSI": "\x9b2J",
    "bidi": "abc\u202edef",
    "zero-width": "a\u200bb\u2060c\ufeffd",
    "markup tags": "[/bogus] [red]x[/red]",
    "markup regex": "'^[a-z][0-9]+$'",
    "10k line": "L" * 10_000,
}
NAMES = list(VECTORS)

# What must never reach a terminal raw: C0 but TAB/LF, DEL, C1, bidi, zero-width, BOM, separators.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]")
RAW_BYTES = re.compile(rb"[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\x8b-\x8f\xa8-\xae]|\xe2\x81[\xa0-\xaf]|\xef\xbb\xbf")


def shown(name: str) -> str:
    """The visible form a surface must show for a vector (a stretch of it for the long line)."""
    vector = VECTORS[name]
    return "L" * 20 if name == "10k line" else sanitize(vector)


def tally(name: str, surface: str, checks: int) -> None:
    out = os.environ.get("COCKPIT_HOSTILE_TALLY")
    if out:
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({"vector": name, "surface": surface, "checks": checks}) + "\n")


def check_text(text: str, name: str, surface: str, *, visible: bool = True) -> None:
    """`text` (what went to the terminal) has no raw control/bidi/zero-width character and,
    when `visible`, shows the vector's placeholder form."""
    raw = RAW.search(text)
    assert raw is None, f"{surface}: raw {raw.group()!r} for {name}"
    checks = 1
    if visible:
        assert shown(name) in text, f"{surface}: {shown(name)!r} not shown for {name}"
        checks += 1
    tally(name, surface, checks)


def check_bytes(data: bytes, name: str, surface: str, *, visible: bool = True) -> None:
    """The same for a command's output bytes (no ESC, C1, BEL, bidi or zero-width byte sequence)."""
    raw = RAW_BYTES.search(data)
    assert raw is None, f"{surface}: raw {raw.group()!r} for {name}"
    check_text(data.decode("utf-8"), name, surface, visible=visible)
    tally(name, surface, 1)


T0 = datetime(2026, 11, 28, 21, 0, tzinfo=UTC)


def hostile_session(vector: str) -> Session:
    """Every free-text field holds `vector` (after a short label, so surfaces can be told
    apart); no [[hosts]], so the host fields are free text too."""
    v = f"v {vector}"
    return Session(
        title=f"title {vector}",
        created=T0,
        goal=Goal(summary=f"summary {vector}\nline two", model=v, hardware=v,
                  targets=[Target(id="g1", metric="total_tok_s", value=1000, unit=v, label=f"tgt {vector}")]),
        instructions=[Instruction(id="i1", text=f"instr {vector}")],
        discoveries=[Discovery(id="d1", claim=f"claim {vector}", evidence=f"evid {vector}\nmore", tags=[v],
                               benchmarks=["b1"], files=["f1"], tasks=["t1"], created=T0, updated=T0)],
        tasks=[Task(id="t1", title=f"task {vector}", notes=f"notes {vector}", discoveries=["d1"],
                    created=T0, updated=T0),
               Task(id="t2", title=f"doing {vector}", status="doing", created=T0, updated=T0)],
        files=[FileChange(id="f1", path=f"/p/{vector}", host=v, lines=v, change=f"chg {vector}")],
        packages=[Package(id="p1", name=f"pkg {vector}", version=f"1.0{vector}", host=v, captured=T0)],
        launch=[LaunchProfile(id="l1", name=f"prof {vector}", command=f"python -m sglang --x '{vector}'",
                              status="working", host=v, env={"E": v}, notes=f"pnotes {vector}"),
                LaunchProfile(id="l2", name=f"other {vector}", command=f"python -m sglang --y '{vector}'",
                              host=v)],
        benchmarks=[Benchmark(id="b1", label=f"bench {vector}", profile="l1", concurrency=8,
                              total_tok_s=900.0, when=T0 + timedelta(minutes=5), notes=v),
                    Benchmark(id="b2", label=f"bench2 {vector}", profile="l2", concurrency=8,
                              total_tok_s=500.0, when=T0 + timedelta(minutes=9))],
        last_action=LastAction(text=f"did {vector}", when=T0, next_step=f"next {vector}", fallback=f"fb {vector}"),
        journal=[JournalEvent(when=T0 + timedelta(minutes=1), kind="note", text=f"journal {vector}", ref="t1"),
                 JournalEvent(when=T0 + timedelta(minutes=7), kind="task.edited", text=f"edit {vector}", ref="t1")],
    )
