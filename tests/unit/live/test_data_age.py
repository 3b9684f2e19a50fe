"""The age of a live pane's data in words, and when it is stale."""

from __future__ import annotations

from cockpit.live.data_age import DataAge, age_words, stale_after


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_age_words() -> None:
    assert [age_words(s) for s in (0, 0.9, 9.9, 10, 27, 59.9, 60, 119, 3599, 3600, 3900, 86_400, 90_000)] == [
        "0 s", "0 s", "9 s", "10 s", "25 s", "55 s", "1 min", "1 min", "59 min", "1 h", "1 h 5 min", "1 d", "1 d 1 h"]


def test_stale_after_is_five_intervals_and_at_least_five_seconds() -> None:
    assert stale_after(1.0) == 5.0
    assert stale_after(0.2) == 5.0
    assert stale_after(10.0) == 50.0
    assert stale_after(None) == 5.0


def test_a_sampled_source_goes_stale_and_fresh_data_clears_it() -> None:
    clock = Clock()
    age = DataAge("updated", stale_after(1.0), clock=clock)
    assert age.text() == "" and not age.stale()  # no data yet: the pane says it is waiting
    age.seen()
    assert age.text() == "updated just now"
    clock.now += 4
    assert (age.text(), age.stale()) == ("updated 4 s ago", False)
    clock.now += 21
    assert (age.text(), age.stale()) == ("stale · 25 s", True)
    age.seen()
    assert (age.text(), age.stale()) == ("updated just now", False)


def test_a_quiet_log_is_not_stale_until_its_source_loses_the_connection() -> None:
    clock = Clock()
    age = DataAge("last line", clock=clock)
    age.seen()
    clock.now += 150
    assert (age.text(), age.stale()) == ("last line 2 min ago", False)
    age.lost = True
    assert (age.text(), age.stale()) == ("stale · 2 min", True)
    age.lost = False
    assert not age.stale()
    assert DataAge("last line", lost=True, clock=clock).text() == "stale · no data"
