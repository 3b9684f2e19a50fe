"""The handoff export: the seed's eight sections in order, its numbers, no secrets."""

import json
import re
import subprocess
import sys

from paths import EXAMPLE_SESSION

from cockpit.model.edit.edits import SessionEditor
from cockpit.model.session import LaunchProfile
from cockpit.store.export_json import export_json
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session

HEADINGS = [
    "## 1. Goal",
    "## 2. Instructions",
    "## 3. Discoveries",
    "## 4. Accomplished",
    "## 5. Relevant files",
    "## 6. Key package versions",
    "## 7. Working launch command",
    "## 8. Last action",
    "## Benchmarks",
    "## Hosts",
]


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    nxt = text.find("\n## ", start + 1)
    return text[start: nxt if nxt > 0 else None]


def test_the_eight_sections_come_in_the_seed_order_then_benchmarks_and_hosts():
    text = render_handoff(load_session(EXAMPLE_SESSION))
    positions = [text.index(h) for h in HEADINGS]
    assert positions == sorted(positions)
    assert [line for line in text.splitlines() if line.startswith("## ")] == HEADINGS


def test_the_seed_numbers_are_all_there():
    text = render_handoff(load_session(EXAMPLE_SESSION))
    for figure in ("3,740", "1,240", "1024", "~330 W of 600 W", "236", "~8 tok/s", "590.48.01", "2.9.1+cu128"):
        assert figure in text, figure


def test_targets_are_scored_from_benchmarks():
    goal = _section(render_handoff(load_session(EXAMPLE_SESSION)), "## 1. Goal")
    # the figure with its statistic and unit; the value a point's median with its spread
    assert re.search(r"1k\+ total tok/s \(`total tok/s ≥ 1,000 tok/s`\) \| 3,740 tok/s \(one run, no spread\) "
                     r"\| b1 .*\| met \|", goal)
    assert re.search(r">100 tok/s single/dual stream .*\| 8 tok/s \(one run, no spread\) \| b3 .*"
                     r"\| not met: b3 at concurrency 1 breaks it \|", goal)


def test_hypotheses_are_kept_apart_from_confirmed_findings():
    discoveries = _section(render_handoff(load_session(EXAMPLE_SESSION)), "## 3. Discoveries")
    confirmed = discoveries.index("### Confirmed")
    hypotheses = discoveries.index("### Hypotheses")
    assert confirmed < discoveries.index("**d1** [confirmed]") < hypotheses
    assert discoveries.index("**d2** [hypothesis]") > hypotheses
    assert "cudaGridDependencySynchronize" in discoveries


def test_accomplished_has_done_in_progress_and_not_yet_done():
    acc = _section(render_handoff(load_session(EXAMPLE_SESSION)), "## 4. Accomplished")
    done, doing, todo = acc.index("Completed"), acc.index("In progress"), acc.index("Not yet done")
    assert done < acc.index("Set up the Proxmox host") < doing < acc.index("flashinfer_trtllm") < todo
    assert acc.index("Fix allreduce fusion for SM120 properly") > todo


def test_working_launch_command_and_last_action_with_next_step_and_fallback():
    text = render_handoff(load_session(EXAMPLE_SESSION))
    launch = _section(text, "## 7. Working launch command")
    assert "--moe-runner-backend flashinfer_cutlass" in launch.split("Other profiles")[0]
    assert "flashinfer_trtllm** (l2) [candidate]" in launch
    last = _section(text, "## 8. Last action")
    assert "**Next step:** Check if it started successfully and benchmark it." in last
    assert "**Fallback:** If it crashed, fall back to the working flashinfer_cutlass config." in last


def _with_secrets(status: str = "working"):
    editor = SessionEditor(load_session(EXAMPLE_SESSION))

    def change(s):
        s.launch.append(LaunchProfile(
            id="l3", name="secret", status=status,
            command="HF_TOKEN=hf_abcdef123 OPENAI_API_KEY='sk-xyz' python -m sglang.launch_server --api-key sk-live-999 --tp 8",
            env={"HF_TOKEN": "hf_abcdef123", "CUDA_VISIBLE_DEVICES": "0,1"},
        ))
    editor.apply("add secret profile", change)
    return editor.session


def test_secrets_are_redacted_in_markdown_and_json():
    session = _with_secrets()
    for text in (render_handoff(session), export_json(session)):
        for secret in ("hf_abcdef123", "sk-xyz", "sk-live-999"):
            assert secret not in text
        assert "[REDACTED]" in text
        assert "0,1" in text and "--tp 8" in text


def test_other_profiles_show_what_changes_from_the_working_one_without_secrets():
    launch = _section(render_handoff(load_session(EXAMPLE_SESSION)), "## 7. Working launch command")
    assert "Other profiles, with what changes from the working l1:" in launch
    assert "  - `~ --moe-runner-backend: flashinfer_cutlass -> flashinfer_trtllm`" in launch
    launch = _section(render_handoff(_with_secrets("candidate")), "## 7. Working launch command")
    l3 = launch[launch.index("**secret** (l3)"):]
    assert "  - `+ --api-key [REDACTED]`" in l3 and "  - `+ HF_TOKEN=[REDACTED]`" in l3
    assert "  - `- --moe-runner-backend flashinfer_cutlass`" in l3
    for secret in ("hf_abcdef123", "sk-xyz", "sk-live-999"):
        assert secret not in launch


def test_json_export_is_the_validated_model():
    data = json.loads(export_json(load_session(EXAMPLE_SESSION)))
    assert data["benchmarks"][0]["total_tok_s"] == 3740.0
    assert data["goal"]["targets"][1]["concurrency_max"] == 2


def test_export_command_writes_a_file(tmp_path):
    out = tmp_path / "handoff.md"
    done = subprocess.run([sys.executable, "-m", "cockpit", "export", str(EXAMPLE_SESSION), "--format", "md", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8").startswith("# GLM-5-NVFP4")


def test_model_and_hardware_stand_on_their_own_lines_not_in_the_summary_paragraph():
    from markdown_it import MarkdownIt

    session = load_session(EXAMPLE_SESSION)
    goal = _section(render_handoff(session), "## 1. Goal")
    tokens = MarkdownIt().parse(goal)
    paragraphs = [t.content for t in tokens if t.type == "inline"]
    summary = next(p for p in paragraphs if session.goal.summary.split()[0] in p)
    assert "Model:" not in summary and "Hardware:" not in summary
    items = [tokens[i + 2].content for i, t in enumerate(tokens) if t.type == "list_item_open"]
    assert items[:2] == [f"**Model:** {session.goal.model}", f"**Hardware:** {session.goal.hardware}"]
    only_model = render_handoff(session.model_copy(update={"goal": session.goal.model_copy(
        update={"summary": None, "hardware": None})}))
    assert _section(only_model, "## 1. Goal").startswith(f"## 1. Goal\n\n- **Model:** {session.goal.model}\n\n|")
