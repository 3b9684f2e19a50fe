"""What a host runs now: the probe run there, and the reading of its answer.

One `python -c` run on the host (its own interpreter: the server's venv matters) prints
one marked JSON line with the versions of the asked pip distributions, the NVIDIA driver
(nvidia-smi) and the CUDA toolkit (nvcc). A session records the driver and toolkit as
packages named like "NVIDIA driver" and "CUDA toolkit"; `kind_of` tells them apart.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field

from cockpit.ground.sanitize import sanitize

MARK = "COCKPIT-PROBE "

PROBE = r'''
import json, re, subprocess, sys
from importlib import metadata
spec = json.loads(sys.argv[1])
out = {"python": sys.version.split()[0], "packages": {}, "driver": None, "cuda": None}
for name in spec["pip"]:
    try:
        out["packages"][name] = metadata.version(name)
    except Exception:
        out["packages"][name] = None
def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout
    except Exception:
        return ""
if spec["driver"]:
    lines = run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"]).split()
    out["driver"] = lines[0] if lines else None
if spec["cuda"]:
    for nvcc in ("nvcc", "/usr/local/cuda/bin/nvcc"):
        m = re.search(r"release (\d+(?:\.\d+)*)", run([nvcc, "--version"]))
        if m:
            out["cuda"] = m.group(1)
            break
print("COCKPIT-PROBE " + json.dumps(out))
'''

_DRIVER = re.compile(r"\bdriver\b", re.I)
_CUDA = re.compile(r"^(cuda( toolkit)?|nvcc)$", re.I)


def kind_of(name: str) -> str:
    """"driver", "cuda" or "pip": where the version of a recorded package comes from."""
    if _DRIVER.search(name):
        return "driver"
    return "cuda" if _CUDA.match(name.strip()) else "pip"


def probe_command(python: str, names: list[str]) -> str:
    """The shell command that probes `names` with `python` on the host."""
    kinds = {name: kind_of(name) for name in names}
    spec = {"pip": [n for n, k in kinds.items() if k == "pip"],
            "driver": "driver" in kinds.values(), "cuda": "cuda" in kinds.values()}
    return shlex.join([python, "-c", PROBE, json.dumps(spec)])


class ProbeError(Exception):
    """The probe gave no answer (no python there, an error): the message says why."""


@dataclass(frozen=True)
class ProbeResult:
    python: str
    packages: dict[str, str | None] = field(default_factory=dict)
    driver: str | None = None
    cuda: str | None = None

    def version_of(self, name: str) -> str | None:
        kind = kind_of(name)
        return self.driver if kind == "driver" else self.cuda if kind == "cuda" else self.packages.get(name)


def parse_probe_output(stdout: str, stderr: str = "", status: int | None = 0) -> ProbeResult:
    """The marked line among whatever else the host printed (a login banner, warnings)."""
    for line in reversed(stdout.splitlines()):
        if line.startswith(MARK):
            try:
                data = json.loads(line[len(MARK):])
                return ProbeResult(_text(data["python"]),
                                   {_text(k): _inert(v) for k, v in dict(data["packages"]).items()},
                                   _inert(data.get("driver")), _inert(data.get("cuda")))
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise ProbeError(f"unreadable probe answer ({exc})") from None
    why = (stderr.strip() or stdout.strip() or f"exit status {status}").splitlines()[-1]
    raise ProbeError(sanitize(why))


def _text(value: object) -> str:
    """A host's text made inert (see _inert), where it must be there."""
    return sanitize(str(value))


def _inert(value: object) -> str | None:
    """A host's text (str or None as it sent it) never drives the terminal: controls are
    shown, not obeyed."""
    return None if value is None else sanitize(str(value))
