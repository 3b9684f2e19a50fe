"""Keys typed as fast as a person types (or pastes) into a form land in the field they were
typed for: a Tab moves on before the next key is read, in the real program in tmux.

The keys go to tmux in ONE send-keys call, so they reach cockpit in one burst, as they do from
a fast typist over SSH. With Tab handled after the field (its key bubbling up from the Input),
every key after it landed in the field being left: `Did  did0next0fb0`, the others empty."""

from __future__ import annotations

import time
import tomllib
from pathlib import Path

from tmux_driver import cockpit_program, tmux  # noqa: F401  (tmux is the fixture)

from cockpit.model.session import LastAction, Session
from cockpit.store.toml_store import save_session

DID, NEXT, FALLBACK = "pinned NCCL to node 0", "rerun c=8 on l2", "back to cutlass"


def _row(screen: str, label: str) -> str:
    line = next(line for line in screen.splitlines() if f" {label} " in line and "│" in line)
    return line.split(label, 1)[1].strip(" │")


def test_keys_right_after_tab_land_in_the_next_field(tmux, tmp_path: Path):
    path = tmp_path / "fast.toml"
    save_session(Session(title="fast typist"), path)
    tmux.start(f"{cockpit_program()} {path}", width=120, height=40)
    tmux.wait_for("fast typist")
    tmux.keys("L")
    tmux.wait_for("what you just did")  # the form's placeholder (the tab bar says "Last action" already)
    time.sleep(0.5)  # the form's first field takes focus just after it is drawn
    tmux.run("send-keys", "-t", "t", DID, "Tab", NEXT, "Tab", FALLBACK)
    screen = tmux.wait_for(FALLBACK)
    assert (_row(screen, "Did"), _row(screen, "Next"), _row(screen, "Fallback")) == (DID, NEXT, FALLBACK), screen
    tmux.keys("C-s")
    tmux.wait_for(f"fallback: {FALLBACK}")
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    last = tomllib.loads(path.read_text(encoding="utf-8"))["last_action"]
    assert (last["text"], last["next_step"], last["fallback"]) == (DID, NEXT, FALLBACK)


def test_keys_typed_into_a_prefilled_field_replace_what_was_there(tmux, tmp_path: Path):
    """The old value is selected when the form opens: typing replaces it (it used to land at
    its start, `pinned NCCL to node 0tp4 and rerun ...`)."""
    path = tmp_path / "prefilled.toml"
    save_session(Session(title="prefilled", last_action=LastAction(
        text="tp4 and rerun the c=8 point", next_step="compare with l1")), path)
    tmux.start(f"{cockpit_program()} {path}", width=120, height=40)
    tmux.wait_for("prefilled")
    tmux.keys("L")
    screen = tmux.wait_for("Last action")
    assert "tp4 and rerun the c=8 point" in screen, "the old value shows from its start"
    time.sleep(0.5)
    tmux.run("send-keys", "-t", "t", DID, "Tab", NEXT)
    screen = tmux.wait_for(NEXT)
    assert (_row(screen, "Did"), _row(screen, "Next")) == (DID, NEXT), screen
    tmux.keys("C-s")
    tmux.wait_for(f"next: {NEXT}")
    tmux.keys("C-s")
    tmux.wait_for(" saved")
    tmux.keys("q")
    tmux.wait_for("COCKPIT-EXIT=0")
    last = tomllib.loads(path.read_text(encoding="utf-8"))["last_action"]
    assert (last["text"], last["next_step"]) == (DID, NEXT)
