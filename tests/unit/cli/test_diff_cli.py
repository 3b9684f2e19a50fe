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


SECRETS = ("hf_live_abc123", "sk-live-999", "sk-env-777", "hf_env_456")


def _session_with_secrets(tmp_path):
    """The example session plus l3: l2 with an API key, HF tokens in the command and the env."""
    text = EXAMPLE_SESSION.read_text(encoding="utf-8")
    l3 = (
        '[[launch]]\nid = "l3"\nname = "keyed"\nstatus = "candidate"\n'
        'command = "HF_TOKEN=hf_live_abc123 python -m sglang.launch_server --model-path lukealonso/GLM-5-NVFP4 '
        '--tp 8 --moe-runner-backend flashinfer_trtllm --api-key sk-live-999 --max-total-tokens 4096"\n'
        '[launch.env]\nOPENAI_API_KEY = "sk-env-777"\nEXTRA = "HUB_TOKEN=hf_env_456"\n\n'
    )
    at = text.index("[[benchmarks]]")
    path = tmp_path / "s.toml"
    path.write_text(text[:at] + l3 + text[at:], encoding="utf-8")
    return path


def test_secrets_are_redacted_in_the_text_diff(tmp_path):
    done = cockpit("diff", _session_with_secrets(tmp_path), "l2", "l3")
    assert done.returncode == 0, done.stderr
    for secret in SECRETS:
        assert secret not in done.stdout
    lines = done.stdout.splitlines()
    assert "  + --api-key [REDACTED]" in lines
    assert "  + --max-total-tokens 4096" in lines  # a tuning knob, not a credential
    assert "  + HF_TOKEN=[REDACTED]" in lines and "  + OPENAI_API_KEY=[REDACTED]" in lines
    assert "  + EXTRA=HUB_TOKEN=[REDACTED]" in lines


def test_secrets_are_redacted_in_the_json_diff(tmp_path):
    done = cockpit("diff", _session_with_secrets(tmp_path), "l3", "l1", "--json")
    assert done.returncode == 0, done.stderr
    for secret in SECRETS:
        assert secret not in done.stdout
    out = json.loads(done.stdout)
    assert {"name": "--api-key", "change": "removed", "old": "[REDACTED]", "new": None} in out["options"]
    assert {"name": "HF_TOKEN", "change": "removed", "old": "[REDACTED]", "new": None} in out["env"]


def test_diff_takes_a_name_as_cockpit_run_and_sweep_do_ignoring_case():
    # one find-by-id-or-name (model/edit/lookup.py) for every command that takes a profile
    done = cockpit("diff", EXAMPLE_SESSION, "FlashInfer_Cutlass", "l2")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "l1 flashinfer_cutlass -> l2 flashinfer_trtllm"
