"""`cockpit log TARGET`: which feed a target becomes (the TUI itself is driven in tmux)."""

from __future__ import annotations

import pytest

from cockpit.cli import build_parser
from cockpit.cli.watch.log_tui_cmd import feed_for


def _args(*argv: str):  # noqa: ANN202
    return build_parser(("cockpit.cli.watch.log_tui_cmd",)).parse_args(["log", *argv])


def test_a_local_path_is_tailed_from_its_last_lines_with_the_beginning_summarized(tmp_path) -> None:
    feed = feed_for(_args(str(tmp_path / "server.log")))
    assert feed.description == f"tail {tmp_path / 'server.log'}"
    assert feed.scan_prefix  # the part before the last 50k lines is summarized elsewhere


def test_from_start_reads_everything_and_scans_nothing_twice(tmp_path) -> None:
    feed = feed_for(_args("--from-start", str(tmp_path / "server.log")))
    assert not feed.scan_prefix


def test_remote_targets_and_commands_name_their_host() -> None:
    assert feed_for(_args("sglang@gpu1:/var/log/sglang.log")).description == "tail sglang@gpu1:/var/log/sglang.log"
    feed = feed_for(_args("gpu1", "--cmd", "docker logs -f sglang"))
    assert feed.description == "tail gpu1: docker logs -f sglang"


@pytest.mark.parametrize(("argv", "reason"), [
    (("-n", "-1", "x.log"), "-n must be 0 or more"),
    (("ssh://@gpu1/x.log",), "empty user"),
])
def test_a_target_that_cannot_be_followed_is_refused(argv, reason) -> None:
    with pytest.raises(ValueError, match=reason):
        feed_for(_args(*argv))
