"""Launch profile diff: how a command is read, what counts as a change, how it reads."""

from __future__ import annotations

import pytest

from cockpit.model.bench.profile_diff import diff_lines, diff_profiles, split_command
from cockpit.model.session import LaunchProfile

BASE = ("python3 -m sglang.launch_server --model-path /models/GLM-5 --tp 8 "
        "--enable-dp-attention --cuda-graph-bs 1 2 4 8 --mem-fraction-static=0.85")


def profile(command: str, ident: str = "l1", **kw) -> LaunchProfile:
    return LaunchProfile(id=ident, name=ident, command=command, **kw)


def test_a_command_splits_into_env_program_and_options() -> None:
    parts = split_command("CUDA_VISIBLE_DEVICES=0,1 NCCL_ALGO=Tree " + BASE +
                          " --json-model-override-args '{\"a\": 1}' --offset -2 --lora-paths a --lora-paths b")
    assert parts.env == {"CUDA_VISIBLE_DEVICES": "0,1", "NCCL_ALGO": "Tree"}
    assert parts.program == "python3 -m sglang.launch_server"
    assert parts.options == {
        "--model-path": ("/models/GLM-5",), "--tp": ("8",), "--enable-dp-attention": ("",),
        "--cuda-graph-bs": ("1 2 4 8",), "--mem-fraction-static": ("0.85",),
        "--json-model-override-args": ('{"a": 1}',), "--offset": ("-2",), "--lora-paths": ("a", "b"),
    }


def test_other_programs_and_broken_quotes() -> None:
    assert split_command("sglang serve --model-path m").program == "sglang serve"
    assert split_command("/opt/venv/bin/python3.11 -m sglang.launch_server --tp 2").program == \
        "/opt/venv/bin/python3.11 -m sglang.launch_server"
    parts = split_command("python -m x --name 'unclosed --tp 4")  # shlex refuses it: plain words
    assert parts.options["--tp"] == ("4",)


def test_the_order_of_options_does_not_matter() -> None:
    shuffled = ("python3 -m sglang.launch_server --tp 8 --mem-fraction-static=0.85 --cuda-graph-bs 1 2 4 8 "
                "--enable-dp-attention --model-path /models/GLM-5")
    diff = diff_profiles(profile(BASE), profile(shuffled, "l2"))
    assert diff.identical and diff.same_options == 5
    assert diff_lines(diff) == [("note", "The two profiles launch the same command.")]


def test_added_removed_changed_env_and_host() -> None:
    other = (BASE.replace("--tp 8", "--tp 4").replace(" --enable-dp-attention", "")
             + " --speculative-algorithm EAGLE3")
    base = profile("NCCL_ALGO=Ring " + BASE, host="h200a", env={"NCCL_P2P_LEVEL": "SYS", "X": "1"})
    diff = diff_profiles(base, profile(other, "l2", host="h200b", env={"X": "2", "NCCL_ALGO": "Tree"}))
    assert [(c.name, c.kind, c.old, c.new) for c in diff.options] == [
        ("--tp", "changed", "8", "4"), ("--enable-dp-attention", "removed", "", None),
        ("--speculative-algorithm", "added", None, "EAGLE3")]
    assert [(c.name, c.kind) for c in diff.env] == [
        ("NCCL_P2P_LEVEL", "removed"), ("X", "changed"), ("NCCL_ALGO", "changed")]
    assert diff_lines(diff) == [
        ("heading", "Options"),
        ("changed", "~ --tp: 8 -> 4"),
        ("removed", "- --enable-dp-attention"),
        ("added", "+ --speculative-algorithm EAGLE3"),
        ("note", "3 option(s) the same"),
        ("heading", "Env"),
        ("removed", "- NCCL_P2P_LEVEL=SYS"),
        ("changed", "~ X: 1 -> 2"),
        ("changed", "~ NCCL_ALGO: Ring -> Tree"),
        ("heading", "Host"),
        ("changed", "~ h200a -> h200b"),
    ]
    assert diff.to_dict()["host"] == {"old": "h200a", "new": "h200b"}


@pytest.mark.parametrize("old,new,line", [
    ("--disable-radix-cache", "--disable-radix-cache=true", "~ --disable-radix-cache: (switch) -> true"),
    ("--lora-paths a --lora-paths b", "--lora-paths a", "~ --lora-paths: a ; b -> a"),
])
def test_switches_and_repeated_options(old: str, new: str, line: str) -> None:
    diff = diff_profiles(profile("python -m s " + old), profile("python -m s " + new, "l2"))
    assert ("changed", line) in diff_lines(diff)


def test_a_changed_program() -> None:
    diff = diff_profiles(profile("python -m sglang.launch_server --tp 8"),
                         profile("sglang serve --tp 8", "l2"))
    assert diff_lines(diff)[-2:] == [("heading", "Program"),
                                     ("changed", "~ python -m sglang.launch_server -> sglang serve")]


def test_secrets_are_masked_in_the_diff_itself_and_a_changed_one_still_shows() -> None:
    a = profile("HF_TOKEN=hf_old " + BASE + " --api-key sk-old", env={"OPENAI_API_KEY": "sk-env"})
    b = profile("HF_TOKEN=hf_new " + BASE + " --api-key=sk-new --hf-token hf_z --max-total-tokens 4096", "l2",
                env={"EXTRA": "HUB_TOKEN=hf_inner"})
    diff = diff_profiles(a, b)
    text = "\n".join(t for _, t in diff_lines(diff)) + repr(diff.to_dict())
    for secret in ("hf_old", "hf_new", "sk-old", "sk-new", "sk-env", "hf_z", "hf_inner"):
        assert secret not in text
    lines = [t for _, t in diff_lines(diff)]
    assert "~ --api-key: [REDACTED] -> [REDACTED]" in lines and "~ HF_TOKEN: [REDACTED] -> [REDACTED]" in lines
    assert "+ --hf-token [REDACTED]" in lines and "+ --max-total-tokens 4096" in lines
    assert "- OPENAI_API_KEY=[REDACTED]" in lines and "+ EXTRA=HUB_TOKEN=[REDACTED]" in lines
