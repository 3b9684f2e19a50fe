"""What the GPU sources (NVML, the remote nvidia-smi stream, the demo replay) emit: plain
event types beside the sample they carry, so `live` folds them without importing `sources`."""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.parse.gpu.sample import GpuSample


@dataclass(frozen=True, slots=True)
class GpuSamplesTaken:
    """One tick: a sample of every GPU of one host."""

    host: str | None
    """None for the local machine (NVML)."""
    samples: tuple[GpuSample, ...]
    taken_at: float
    """Reader's clock (epoch seconds) when the tick was complete."""


@dataclass(frozen=True, slots=True)
class GpuStreamInterrupted:
    """The remote stream dropped; it restarts by itself in `retry_in_s`."""

    host: str
    reason: str
    retry_in_s: float


class GpuSourceUnavailable(Exception):
    """No GPU data from this source, with one sentence saying why.

    Raised by `NvmlSampler.open()` when there is no usable driver; yielded as a final
    event by `NvsmiStream` when the host has no nvidia-smi.
    """

    def __init__(self, message: str, *, host: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.host = host

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, GpuSourceUnavailable)
            and (self.message, self.host) == (other.message, other.host)
        )

    def __hash__(self) -> int:
        return hash((self.message, self.host))


GpuEvent = GpuSamplesTaken | GpuStreamInterrupted | GpuSourceUnavailable
