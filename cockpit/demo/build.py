"""`cockpit --demo`: the example session with live panes fed by a replay.

The session is a working copy of `sessions/glm5-nvfp4.toml` in the state folder (the
shipped file is never touched), so a newcomer can edit, save and reopen it. The replay
writes real-format SGLang lines into a temporary log that the real tail and parser
follow, plays recorded `nvidia-smi` CSV through the real stream parser, and replays a
server's `/metrics` (demo/metrics.py) through the real exposition parser; the CLI
adds the Fleet tab's replay of recorded PromQL answers (demo/fleet.py). Quitting
removes the temporary folder; the session copy stays (its path is printed), and the next
`--demo` reopens it: only `--demo --fresh` starts a new copy, keeping the previous one
beside it as `*.prev.toml`.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from cockpit.demo.metrics import DemoMetricsFeed
from cockpit.demo.replay import DemoGpuReplay, DemoLogWriter
from cockpit.parse.gpu.events import GpuSamplesTaken
from cockpit.sources.feeds import LiveSources
from cockpit.sources.gpu.feed import FileTopologyFeed
from cockpit.sources.log.feed import LogFeed

DEMO_SESSION = "glm5-nvfp4.toml"


def data_dir() -> Path:
    """`sessions/` of the checkout, or the copy packed into the wheel."""
    here = Path(__file__).resolve().parent.parent
    for candidate in (here.parent / "sessions", here / "_data" / "sessions"):
        if (candidate / DEMO_SESSION).exists():
            return candidate
    raise FileNotFoundError("the example session (sessions/glm5-nvfp4.toml) is not installed")


def state_dir() -> Path:
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "cockpit" / "demo"


class DemoGpuFeed:
    """The recorded 8-GPU stream as a LiveFeed."""

    def __init__(self, capture: Path, host: str = "lxc") -> None:
        self.replay = DemoGpuReplay(capture, host=host)
        self.interval_s = self.replay.interval_s
        self.description = f"replay: nvidia-smi --query-gpu on {host} every 1 s (demo)"

    def stream(self) -> AsyncIterator[GpuSamplesTaken]:
        return self.replay.events()


def demo_copy(folder: Path, shipped: Path, *, fresh: bool = False) -> tuple[Path, str]:
    """The demo's working copy of `shipped` in `folder`, and a line saying which one it is.

    The copy kept from the last demo is reopened (quitting said it stays); a new one is
    made when there is none or `fresh` asks, and a previous copy then moves aside to
    `NAME.prev.toml` rather than being lost.
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / shipped.name
    if path.exists() and not fresh:
        return path, f"cockpit demo: reopening your demo copy {path} (--demo --fresh starts a new one)"
    note = f"cockpit demo: new demo copy {path}"
    if path.exists():
        previous = path.with_suffix(".prev.toml")
        os.replace(path, previous)
        note += f" (the previous one is kept as {previous})"
    shutil.copyfile(shipped, path)
    return path, note


def build_demo(args: Any = None, *, speed: float = 1.0) -> tuple[Path, LiveSources]:
    """The demo's working copy of the example session and the replay feeds for it."""
    data = data_dir()
    session_path, note = demo_copy(state_dir(), data / DEMO_SESSION, fresh=bool(getattr(args, "fresh", False)))
    print(note, file=sys.stderr)
    scratch = Path(tempfile.mkdtemp(prefix="cockpit-demo-"))
    log_path = scratch / "sglang-server.log"
    log_path.touch()
    writer = DemoLogWriter(data / "demo" / "sglang-server.log", log_path, speed=speed)

    def cleanup() -> None:
        shutil.rmtree(scratch, ignore_errors=True)
        sources.exit_notes.append(f"cockpit demo: removed {scratch}; your demo session stays at {session_path} "
                                  "(cockpit --demo reopens it; --demo --fresh starts a new copy)")

    gpu = DemoGpuFeed(data / "demo" / "nvidia-smi-query.csv")
    sources = LiveSources(
        log=LogFeed.local(str(log_path), from_start=True),
        gpu=gpu,
        topology=FileTopologyFeed(data / "demo" / "nvidia-smi-topo.txt"),
        metrics=DemoMetricsFeed(data / "demo" / "sglang-metrics-a.txt", data / "demo" / "sglang-metrics-b.txt",
                                interval_s=2.0 / speed, load=writer.load),
        title_note="DEMO",
        host_reads={gpu.replay.host: ["log replayed from sessions/demo (demo)",
                                      f"{gpu.replay.gpu_count()} GPUs: nvidia-smi replayed (demo)",
                                      "metrics replayed (demo)"]},
        on_start=[writer.run],
        on_stop=[cleanup],
    )
    return session_path, sources
