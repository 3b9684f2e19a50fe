"""parse/ and live/ never pull in Textual (or other cockpit rooms than parse)."""

import subprocess
import sys

MODULES = [
    "cockpit.parse.sanitize", "cockpit.parse.log_events", "cockpit.parse.error_labels",
    "cockpit.parse.bench_serving", "cockpit.parse.batch_lines", "cockpit.parse.sglang_log",
    "cockpit.parse.sglang_patterns", "cockpit.parse.log_summary", "cockpit.parse.log_summary_scan",
    "cockpit.parse.log_summary_fast", "cockpit.parse.log_summary_hs", "cockpit.live.log_metrics", "cockpit.live.server_runs",
    "cockpit.parse.prom_text", "cockpit.parse.sglang_metrics", "cockpit.parse.dcgm_metrics", "cockpit.live.server_metrics",
    "cockpit.cli.log_cmds",
]


def test_parse_and_live_import_without_textual() -> None:
    code = (
        "import sys\n"
        f"for m in {MODULES!r}: __import__(m)\n"
        "bad = [m for m in sys.modules if m == 'textual' or m.startswith('textual.')]\n"
        "assert not bad, bad\n"
        "rooms = {m.split('.')[1] for m in sys.modules if m.startswith('cockpit.') and m.count('.') >= 1}\n"
        "assert rooms <= {'parse', 'live', 'cli'}, rooms\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
