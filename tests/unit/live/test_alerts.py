"""Alerts raise on the four causes, once per cause, and stay until taken."""

from cockpit.live.alerts import BACKLOG_S, AlertBook, error_lines
from cockpit.live.log.items import lines_of
from cockpit.parse.log.sglang_log import parse_text


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_crashed_run_raises_once_and_stays_until_taken():
    book = AlertBook()
    assert book.observe_run(1, "ready", None) is None
    alert = book.observe_run(1, "error", "torch.OutOfMemoryError: CUDA out of memory")
    assert alert is not None and (alert.kind, alert.tab, alert.pane) == ("crash", "main", "log")
    assert "server crashed (run 1): torch.OutOfMemoryError" in book.headline()
    assert book.headline(terse=True) == "⚠ server crashed · !"
    assert book.observe_run(1, "error", "again") is None, "the same run raises once"
    assert book.take() == alert
    assert book.headline() == "" and book.take() is None
    assert book.observe_run(2, "error", None) is not None, "the next run's crash is news"


def test_a_crash_speaks_in_its_label_first_without_the_log_prefix():
    book = AlertBook()
    book.observe_run(1, "error", "[2026-12-02 06:55:17 TP0] Received sigquit from a child process.", "cuda_oom")
    assert book.unseen[0].text == "server crashed (run 1): cuda_oom · Received sigquit from a child process."
    assert book.headline(terse=True) == "⚠ server crashed: cuda_oom · !"


def test_an_error_burst_counts_within_its_window_and_not_the_backlog():
    clock = Clock()
    book = AlertBook(clock=clock, burst_count=5, burst_window_s=60)
    assert book.observe_error_lines(50) is None, "the lines read on open are the backlog"
    clock.t += BACKLOG_S + 1
    assert book.observe_error_lines(3) is None
    clock.t += 61  # the first three fall out of the window
    assert book.observe_error_lines(4) is None
    clock.t += 10
    alert = book.observe_error_lines(1)
    assert alert is not None and alert.text == "5 error lines in the log within 60 s"
    assert book.observe_error_lines(9) is None, "unseen: not raised twice"


def test_a_host_that_was_connected_and_drops_raises_a_first_failure_does_not():
    book = AlertBook()
    assert book.observe_host("lxc", "connecting") is None
    assert book.observe_host("lxc", "failed: host key not trusted") is None, "never up: the header says it"
    book.observe_host("lxc", "connected")
    alert = book.observe_host("lxc", "reconnecting in 8 s")
    assert alert is not None and alert.text == "host lxc dropped: reconnecting in 8 s"


def test_a_feed_raises_when_it_goes_stale_not_while_it_stays_stale():
    book = AlertBook()
    assert book.observe_stale("gpu", False) is None
    assert book.observe_stale("gpu", True, "stale · 25 s") is not None
    book.take()
    assert book.observe_stale("gpu", True) is None
    book.observe_stale("gpu", False)
    assert book.observe_stale("gpu", True) is not None


def test_error_lines_counts_labelled_lines_and_traceback_blocks():
    text = ("[2026-01-01 10:00:00] INFO starting\n"
            "[2026-01-01 10:00:01] ERROR NCCL error: unhandled system error\n"
            "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\n"
            "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    assert error_lines(lines_of(parse_text(text))) == 2, "the NCCL line, and the traceback as one"
    assert error_lines(lines_of(parse_text("[2026-01-01 10:00:00] INFO fine\n"))) == 0
