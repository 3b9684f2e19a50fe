"""parse/ and live/ never pull in Textual (or other cockpit rooms than parse)."""

import subprocess
import sys

MODULES = [
    "cockpit.ground.sanitize", "cockpit.parse.log.events", "cockpit.parse.log.error_labels",
    "cockpit.parse.bench.bench_serving", "cockpit.parse.log.batch_lines", "cockpit.parse.log.sglang_log",
    "cockpit.parse.log.sglang_patterns", "cockpit.parse.log.summary", "cockpit.parse.log.summary_scan",
    "cockpit.parse.log.summary_fast", "cockpit.parse.log.summary_hs", "cockpit.live.log.metrics",
    "cockpit.live.experiment.server_runs", "cockpit.parse.metrics.prom_text", "cockpit.parse.metrics.sglang_metrics",
    "cockpit.parse.gpu.dcgm_metrics", "cockpit.live.metrics.server_metrics",
    "cockpit.cli.watch.log_cmds",
]


def test_parse_and_live_import_without_textual() -> None:
    code = (
        "import sys\n"
        f"for m in {MODULES!r}: __import__(m)\n"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]\n"
        "assert not bad, bad\n"
        "rooms = {m.split('.')[1] for m in sys.modules if m.startswith('cockpit.') and m.count('.') >= 1}\n"
        "assert rooms <= {'parse', 'live', 'cli', 'ground'}, rooms\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
