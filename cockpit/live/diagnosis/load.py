"""DiagnosisInputs from files: a server log, /metrics pages, nvidia-smi output (the
`--query-gpu` CSV or the plain table) and `nvidia-smi topo -m`, as `cockpit diagnose` takes
them and as the demo ships them. A file that does not parse is an error naming it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from cockpit.live.diagnosis.inputs import DiagnosisInputs, inputs_of
from cockpit.live.snapshot import snapshot_of
from cockpit.model.session import Session
from cockpit.parse.gpu.nvsmi_query import looks_like_table, parse_nvsmi_table, parse_query_csv
from cockpit.parse.gpu.nvsmi_topo import TopologyMatrix, TopologyParseError, parse_topology
from cockpit.parse.gpu.sample import GpuSample
from cockpit.parse.metrics.prom_text import CHUNK_CHARS, ExpositionError, parse_exposition
from cockpit.parse.metrics.sglang_metrics import ServerScrape, sglang_scrape, sglang_scrape_streamed

MAX_BYTES = 32 << 20  # the cap of every file the headless commands read


class InputFileError(ValueError):
    """`path: why` for a file that cannot be used."""


def _text(path: Path) -> str:
    if path.stat().st_size > MAX_BYTES:
        raise InputFileError(f"{path}: over 32 MB, not read")
    return path.read_text(encoding="utf-8", errors="replace")


def gpus_from_text(text: str, where: str = "gpus") -> list[GpuSample]:
    """Raises InputFileError at the first line whose GPU index or figure is out of range."""
    if looks_like_table(text):
        return parse_nvsmi_table(text)
    refused: list[tuple[int, str]] = []
    samples = parse_query_csv(text, refused=refused)
    if refused:
        line, why = refused[0]
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise InputFileError(f"{where}:{line}: {why}{more}")
    return samples


def scrape_from_text(text: str, where: str = "metrics") -> ServerScrape:
    """Raises InputFileError for text that is not Prometheus's, or at the first line whose
    SGLang figure is no reading (inf, nan, negative, 1e308)."""
    try:
        scrape = sglang_scrape(parse_exposition(text))
    except (ExpositionError, ValueError) as exc:
        raise InputFileError(f"{where}: not Prometheus text ({exc})") from exc
    if scrape.refused:
        name, value = scrape.refused[0]
        more = f" (and {len(scrape.refused) - 1} more)" if len(scrape.refused) > 1 else ""
        raise InputFileError(f"{where}:{_line_of(text, name)}: {name} = {value:g} is no reading "
                             f"(a count, rate or time: finite, 0 or more; a share at most 1){more}")
    return scrape


def _line_of(text: str, name: str) -> int:
    """The line of the first sample of `name` (either SGLang spelling); 1 when not found."""
    spellings = (name, name.replace(":", "_", 1))
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith(spellings) and line[len(name):len(name) + 1] in ("{", " "):
            return number
    return 1


def scrape_from_file(path: Path) -> ServerScrape:
    """A /metrics page on disk, read line by line keeping only the families the diagnosis
    reads: a 31 MB page of 700,000 series in seconds and a few MB, not 30 s and 640 MB."""
    if path.stat().st_size > MAX_BYTES:
        raise InputFileError(f"{path}: over 32 MB, not read")
    with open(path, encoding="utf-8", errors="replace") as handle:
        try:
            return sglang_scrape_streamed(iter(lambda: handle.read(CHUNK_CHARS), ""))
        except (ExpositionError, ValueError) as exc:
            raise InputFileError(f"{path}: not Prometheus text ({exc})") from exc


def topology_from_text(text: str, where: str = "topo") -> TopologyMatrix:
    try:
        return parse_topology(text)
    except TopologyParseError as exc:
        raise InputFileError(f"{where}: {exc}") from exc


def inputs_from_files(session: Session | None = None, *, log: Path | None = None,
                      metrics: Sequence[Path] = (), gpus: Path | None = None,
                      topo: Path | None = None) -> DiagnosisInputs:
    """Raises InputFileError (or OSError: a missing file) naming the file."""
    log_lines = _text(log).splitlines() if log is not None else None
    samples = gpus_from_text(_text(gpus), str(gpus)) if gpus is not None else []
    if gpus is not None and not samples:
        raise InputFileError(f"{gpus}: no GPU sample in it (nvidia-smi --query-gpu CSV or the nvidia-smi table)")
    scrapes = [scrape_from_file(p) for p in metrics]
    matrix = topology_from_text(_text(topo), str(topo)) if topo is not None else None
    return inputs_of(snapshot_of(log_lines=log_lines, gpus=samples, topology=matrix, scrapes=scrapes), session)

