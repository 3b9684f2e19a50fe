"""`cockpit diff SESSION A B [--json]` from a shell, on the example session."""

import json
import shutil
import subprocess
import sys

from paths import DATA, EXAMPLE_SESSION


def cockpit(*args):
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True)


def test_diff_by_id_and_by_name():
    done = cockpit("diff", EXAMPLE_SESSION, "l1", "flashinfer_trtllm")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "l1 flashinfer_cutlass -> l2 flashinfer_trtllm",
        "best total tok/s: 3,740.0 (l1) vs none recorded (l2)",
        "Options",
        "  ~ --moe-runner-backend: flashinfer_cutlass -> flashinfer_trtllm",
        "  2 option(s) the same",
    ]


def test_diff_json():
    done = cockpit("diff", EXAMPLE_SESSION, "l2", "l1", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert (out["base"], out["other"], out["same_options"]) == ("l2", "l1", 2)
    assert out["options"] == [{"name": "--moe-runner-backend", "change": "changed",
                               "old": "flashinfer_trtllm", "new": "flashinfer_cutlass"}]
    assert out["best_total_tok_s"] == {"l2": None, "l1": 3740.0}
    assert out["env"] == [] and out["host"] is None and out["program"] is None


def test_an_unknown_profile_names_the_known_ones_and_exits_2():
    done = cockpit("diff", EXAMPLE_SESSION, "l1", "l9")
    assert done.returncode == 2 and done.stdout == ""
    assert "no launch profile 'l9'" in done.stderr and "l1 (flashinfer_cutlass), l2 (flashinfer_trtllm)" in done.stderr


def test_a_broken_session_is_reported_with_its_position(tmp_path):
    path = tmp_path / "bad.toml"
    shutil.copy(DATA / "broken" / "unknown_status.toml", path)
    done = cockpit("diff", path, "l1", "l2")
    assert done.returncode == 1 and done.stderr.startswith(f"{path}:11:1: tasks[1].status")
    assert cockpit("diff", tmp_path / "missing.toml", "l1", "l2").returncode == 1
