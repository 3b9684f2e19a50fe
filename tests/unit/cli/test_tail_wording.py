"""`cockpit tail` says a host's or a file's event in the words the TUI's log pane and the
MCP resources use (sources/log/log_batch.describe_event): one wording, not a copy per reader."""

from __future__ import annotations

import pytest

from cockpit.cli.watch.tail_cmd import _say
from cockpit.sources.log.batch import describe_event
from cockpit.sources.log.tail_events import TailGap, TailRotated
from cockpit.sources.transport.host_events import HostConnected, HostConnecting, HostDisconnected


def _said(capsys: pytest.CaptureFixture[str], event: object) -> str:
    _say(event)  # type: ignore[arg-type]
    return capsys.readouterr().err


def test_a_host_and_a_gap_are_worded_as_the_log_pane_words_them(capsys: pytest.CaptureFixture[str]) -> None:
    dropped = HostDisconnected("gpu1", "connection lost", retry_in_s=8.4)
    assert _said(capsys, dropped) == "cockpit tail: gpu1: connection lost; reconnecting in 8 s\n"
    assert describe_event(dropped) == "gpu1: connection lost; reconnecting in 8 s"
    for event in (HostConnected("gpu1", 0.12), TailGap("ssh reconnect", 3.5)):
        assert _said(capsys, event) == f"cockpit tail: {describe_event(event)}\n"
    assert _said(capsys, HostConnecting("gpu1", 2)) == "cockpit tail: connecting to gpu1 (attempt 2) ...\n"


def test_a_rotation_names_the_file_and_a_final_disconnect_says_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    rotated = TailRotated("/var/log/x\x1b[2J.log", "new inode")
    assert _said(capsys, rotated) == "cockpit tail: /var/log/x␛[2J.log: rotated: new inode\n"  # the escape made visible
    assert _said(capsys, HostDisconnected("gpu1", "closed")) == ""
