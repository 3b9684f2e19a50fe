"""Both engines of the byte summary scan (log_summary_scan.summarize_bytes): the sre
passes, and Hyperscan for the rare lines, maxima and batch line counts, forced on at any
size with one seed sample per slice so its "greater than" candidates are really exercised,
and counting every kind of batch line itself (the sre counting passes it uses for dense
kinds are the sre engine's)."""

from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from cockpit.parse.log import summary_hs as log_summary_hs
from cockpit.parse.log import summary_scan as log_summary_scan
from cockpit.parse.log.summary import Summary

ENGINES = ("sre", "hyperscan")
NO_WHEEL = "no hyperscan wheel for this platform (see docs/testing.md)"


@contextmanager
def scan_engine(name: str) -> Iterator[None]:
    """Make `name` the default engine of summarize_bytes/summarize_stream."""
    if name == "hyperscan" and not log_summary_scan.hyperscan_available():
        pytest.skip(NO_WHEEL)
    saved = log_summary_scan.ENGINE, log_summary_hs.SAMPLES, log_summary_hs.COUNT_DENSITY
    log_summary_scan.ENGINE = "hyperscan" if name == "hyperscan" else "sre"
    if name == "hyperscan":
        log_summary_hs.SAMPLES = 1
        log_summary_hs.COUNT_DENSITY = 1.0
    try:
        yield
    finally:
        log_summary_scan.ENGINE, log_summary_hs.SAMPLES, log_summary_hs.COUNT_DENSITY = saved


@pytest.fixture(params=ENGINES)
def each_engine(request: pytest.FixtureRequest) -> Iterator[str]:
    """Runs a test once per engine; a module opts every test in with
    `pytestmark = pytest.mark.usefixtures("each_engine")` after importing this."""
    with scan_engine(request.param):
        yield request.param


def folded_summary(data: bytes) -> Summary:
    """The reference: `parse_text`'s events folded one by one into a LogSummary."""
    from cockpit.parse.log.sglang_log import parse_text
    from cockpit.parse.log.summary import LogSummary

    summary = LogSummary()
    for event in parse_text(data):
        summary.apply(event)
    return summary.to_dict()
