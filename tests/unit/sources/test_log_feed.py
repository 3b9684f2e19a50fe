"""LogFeed against a real local file: a burst comes as few batches of bytes; which tail a host's
settings open. What the batches become (lines, notes, a preview, the source's state) is tested
through the pipeline production reads them with: tests/unit/control/test_log_pipeline_tail.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from waits import append_lines, batch_line, cancelled, until

from cockpit.model.session import Host
from cockpit.sources.log.batch import LogBatch
from cockpit.sources.log.feed import LogFeed

line = batch_line


class Collector:
    def __init__(self, feed: LogFeed) -> None:
        self.batches: list[LogBatch] = []
        self.task = asyncio.create_task(self._run(feed))

    async def _run(self, feed: LogFeed) -> None:
        async for batch in feed.stream():
            self.batches.append(batch)

    @property
    def lines(self) -> list[str]:
        """The lines the batches carry as bytes (the pipeline's fold parses them)."""
        return [text for b in self.batches for text in b.data.decode().splitlines()]

    @property
    def notes(self) -> list[str]:
        return [n for b in self.batches for n in b.notes]

    async def until(self, cond, timeout: float = 10.0) -> None:  # noqa: ANN001
        await until(cond, lambda: (self.lines[-3:], self.notes), timeout)

    async def stop(self) -> None:
        await cancelled(self.task)


append = append_lines


async def test_a_burst_comes_as_few_batches_not_one_per_line(tmp_path: Path) -> None:
    log = tmp_path / "s.log"
    log.write_text("")
    c = Collector(LogFeed.local(str(log), lines=0, max_delay_s=0.1, max_lines=5000))
    await asyncio.sleep(0.2)
    for _ in range(10):  # 20k lines in ~0.5 s
        append(log, [line(i) for i in range(2000)])
        await asyncio.sleep(0.05)
    await c.until(lambda: len(c.lines) >= 20_000)
    assert len(c.lines) == 20_000
    assert len(c.batches) <= 20, len(c.batches)
    await c.stop()


def test_the_feed_for_a_host_follows_its_settings() -> None:
    assert LogFeed.for_host(Host(name="here", log_path="/var/log/s.log")).description == "tail /var/log/s.log"
    remote = LogFeed.for_host(Host(name="gpu1", ssh="me@gpu1", log_path="/var/log/s.log"))
    assert remote.description == "tail me@gpu1:/var/log/s.log"
    inline = LogFeed.for_host(Host(name="gpu2", log_path="root@gpu2:/x.log"))
    assert inline.description == "tail root@gpu2:/x.log"
    from cockpit.model.launch.confirm import log_fingerprint
    from cockpit.sources.server.confirm_key import LogCommandNotConfirmed, confirmation

    def confirmed(host: Host) -> Host:  # as the TUI's dialog seals it when the person says yes
        return host.model_copy(update={"log_confirmed": confirmation("log", log_fingerprint(host))})

    gpu3 = Host(name="gpu3", ssh="gpu3", log_command="docker logs -f sglang")
    with pytest.raises(LogCommandNotConfirmed, match="log_command not confirmed"):
        LogFeed.for_host(gpu3)  # a command from the session runs only once a person confirmed it
    cmd = LogFeed.for_host(confirmed(gpu3))
    assert cmd.description == "tail gpu3: docker logs -f sglang"
    assert LogFeed.for_host(confirmed(Host(name="l", log_command="journalctl -f"))).description == "run journalctl -f"
    with pytest.raises(ValueError):
        LogFeed.for_host(Host(name="none"))


def test_log_feed_imports_no_textual() -> None:
    import subprocess
    import sys

    code = "import sys, cockpit.sources.log.feed; assert 'textual' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)
