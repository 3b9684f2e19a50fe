"""Package and driver drift: the session's recorded versions against what a host runs now."""

from __future__ import annotations

from dataclasses import dataclass

from cockpit.model.session import Package


@dataclass(frozen=True, slots=True)
class DriftRow:
    package: Package
    host: str  # the host it was checked on ("local" for this machine)
    now: str | None
    status: str  # "same", "changed", "missing" (not there now), "unknown" (the probe failed)
    why: str = ""

    def to_dict(self) -> dict[str, object]:
        return {"id": self.package.id, "name": self.package.name, "host": self.host,
                "recorded": self.package.version, "now": self.now, "status": self.status,
                **({"why": self.why} if self.why else {})}


# Why a version could not be read, by where it comes from (see parse/version_probe.kind_of)
_NOT_READ = {"driver": "nvidia-smi gave no driver version there", "cuda": "no nvcc there"}


def compare(package: Package, host: str, now: str | None, kind: str = "pip") -> DriftRow:
    """`kind`: "pip" (None: not installed there), "driver" or "cuda" (None: not readable)."""
    if now is None:
        if kind in _NOT_READ:
            return DriftRow(package, host, None, "unknown", _NOT_READ[kind])
        return DriftRow(package, host, None, "missing", "not installed for that python")
    return DriftRow(package, host, now, "same" if now.strip() == package.version.strip() else "changed")


def unknown(package: Package, host: str, why: str) -> DriftRow:
    return DriftRow(package, host, None, "unknown", why)


def drifted(rows: list[DriftRow]) -> bool:
    return any(r.status in ("changed", "missing") for r in rows)


def summary(rows: list[DriftRow]) -> str:
    """"Drift: 1 changed, 2 same": the statuses that occur, worst first."""
    counts = {s: sum(r.status == s for r in rows) for s in ("changed", "missing", "unknown", "same")}
    return "Drift: " + ", ".join(f"{n} {s}" for s, n in counts.items() if n)
