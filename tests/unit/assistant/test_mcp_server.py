"""`cockpit mcp` through the SDK's own client, in memory: what an assistant lists, reads and writes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp import Client

from paths import CORPUS

from cockpit.assistant.mcp_server import build_server
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.toml_store import load_session

SECTIONS = {"goal", "instructions", "discoveries", "tasks", "files", "packages", "launch", "benchmarks",
            "last-action", "timeline", "sweeps", "hosts", "targets", "findings"}
LIVE = {"live/log", "live/server", "live/gpus", "live/topology", "live/metrics", "live/fleet"}
TOOLS = {"add_task", "edit_task", "move_task", "link_task", "acknowledge_review", "add_discovery",
         "set_discovery_status", "record_benchmark", "import_bench_serving", "add_launch_profile",
         "mark_profile_working", "record_file", "record_package", "set_last_action", "add_note",
         "edit_launch_profile", "retire_launch_profile", "add_sweep", "dismiss_finding", "accept_finding",
         "add_target"}


@pytest.fixture
def path(example_copy: Path) -> Path:
    return example_copy


def client(path: Path) -> Client:
    return Client(build_server(path))


async def read(c: Client, name: str) -> str:
    result = await c.read_resource(f"cockpit://session/{name}")
    text = result.contents[0].text  # type: ignore[union-attr]
    return text


async def call(c: Client, tool: str, **args: object) -> tuple[bool, str]:
    result = await c.call_tool(tool, args)
    return result.is_error, result.content[0].text  # type: ignore[union-attr]


async def test_it_lists_the_handoff_each_section_the_tools_and_the_two_prompts(path):
    async with client(path) as c:
        uris = {str(r.uri) for r in (await c.list_resources()).resources}
        tools = {t.name for t in (await c.list_tools()).tools}
        prompts = {p.name for p in (await c.list_prompts()).prompts}
    assert uris == {"cockpit://session/handoff"} | {f"cockpit://session/{n}" for n in SECTIONS | LIVE}
    assert tools == TOOLS
    assert prompts == {"resume-campaign", "record-what-you-did"}


async def test_the_handoff_resource_is_the_markdown_export(path):
    async with client(path) as c:
        text = await read(c, "handoff")
    assert text == render_handoff(load_session(path))
    assert text.startswith("# GLM-5-NVFP4") and "## 8. Last action" in text


async def test_tool_schemas_come_from_the_session_models(path):
    async with client(path) as c:
        listed = (await c.list_tools()).tools
    tools = {t.name: t.input_schema for t in listed}
    assert all(t.annotations.open_world_hint is False and t.annotations.destructive_hint is False for t in listed)
    assert tools["add_discovery"]["properties"]["status"]["default"] == "hypothesis"
    defs = tools["add_discovery"]["$defs"]
    assert defs["DiscoveryStatus"]["enum"] == ["hypothesis", "confirmed", "refuted"]
    bench = tools["record_benchmark"]["$defs"]["BenchmarkFields"]
    assert bench["additionalProperties"] is False and "id" not in bench["properties"]
    assert bench["properties"]["concurrency"]["anyOf"][0]["minimum"] == 1
    assert bench["required"] == ["label"]


async def test_a_p99_target_is_added_and_read_back_on_p99_with_its_unit_and_spread(path):
    async with client(path) as c:
        error, ident = await call(c, "add_target", figure="TTFT p99", comparator="<=", value=2000)
        targets = json.loads(await read(c, "targets"))
        bad = await call(c, "add_target", figure="TTFT p42", comparator="<=", value=1)
    assert not error
    target = next(t for t in targets if t["id"] == ident)
    assert target["metric"] == "ttft_p99_ms" and target["describe"] == "TTFT p99 ≤ 2,000 ms"
    assert (target["figure"], target["statistic"], target["unit"]) == ("TTFT p99", "p99", "ms")
    assert bad[0] and "'TTFT p42' is not a recorded figure" in bad[1]


async def test_moving_a_task_is_saved_journaled_via_assistant_and_shown_on_the_tasks_resource(path):
    async with client(path) as c:
        assert await call(c, "move_task", task_id="t8", to="doing") == (False, "t8 moved to doing")
        board = json.loads(await read(c, "tasks"))
        again = await call(c, "move_task", task_id="t8", to="doing")
        missing = await call(c, "move_task", task_id="t99", to="done")
    session = load_session(path)
    assert next(t for t in session.tasks if t.id == "t8").status.value == "doing"
    assert [t["id"] for t in board["doing"]] == ["t7", "t8"] and "t8" not in [t["id"] for t in board["todo"]]
    assert (session.journal[-1].kind, session.journal[-1].text) == ("task.moved", "task t8 moved todo -> doing (via assistant)")
    assert again[0] and "t8 is already in doing" in again[1]
    assert missing[0] and "no task with id 't99'" in missing[1]


async def test_a_bad_status_is_a_tool_error_naming_the_field_and_the_file_is_unchanged(path):
    before = path.read_bytes()
    async with client(path) as c:
        is_error, text = await call(c, "add_discovery", claim="fp8 kv cache is faster", status="maybe")
    assert is_error
    assert "status" in text and "'hypothesis', 'confirmed' or 'refuted'" in text
    assert path.read_bytes() == before


async def test_a_value_the_model_refuses_inside_the_edit_leaves_the_file_byte_for_byte(path):
    before = path.read_bytes()
    async with client(path) as c:
        dangling = await call(c, "record_benchmark", benchmark={"label": "c=4", "profile": "l9"})
        empty = await call(c, "edit_task", task_id="t8", title="")
        below = await call(c, "record_benchmark", benchmark={"label": "c=0", "concurrency": 0})
        unknown = await call(c, "record_package", package={"name": "sglang", "version": "0.5", "colour": "red"})
    assert dangling[0] and "profile" in dangling[1] and "missing launch id 'l9'" in dangling[1]
    assert empty[0] and "title: String should have at least 1 character" in empty[1]
    assert below[0] and "benchmark.concurrency" in below[1] and "greater than or equal to 1" in below[1]
    assert unknown[0] and "package.colour" in unknown[1]
    assert path.read_bytes() == before


async def test_set_last_action_is_saved_and_read_back(path):
    async with client(path) as c:
        assert not (await call(c, "set_last_action", text="relaunched with --cuda-graph-max-bs 64",
                               next_step="bench c=1,2", fallback="back to l1"))[0]
        last = json.loads(await read(c, "last-action"))
        handoff = await read(c, "handoff")
    assert (last["text"], last["next_step"], last["fallback"]) == (
        "relaunched with --cuda-graph-max-bs 64", "bench c=1,2", "back to l1")
    assert load_session(path).last_action.next_step == "bench c=1,2"
    assert "**Next step:** bench c=1,2" in handoff
    assert last["earlier"][0]["text"] == "Server was being launched with --moe-runner-backend flashinfer_trtllm.", \
        "the last action it replaced is kept"


async def test_a_discovery_status_change_flags_its_tasks_and_the_resume_prompt_lists_them(path):
    async with client(path) as c:
        ident = (await call(c, "add_discovery", claim="PDL helps at c=1", evidence="b3"))[1]
        assert ident == "d8"
        assert not (await call(c, "set_discovery_status", discovery_id="d2", status="refuted"))[0]
        prompt = await c.get_prompt("resume-campaign")
        flagged = [t["id"] for col in json.loads(await read(c, "tasks")).values() for t in col if t["review"]]
        assert not (await call(c, "acknowledge_review", task_id="t8"))[0]
    text = prompt.messages[0].content.text  # type: ignore[union-attr]
    assert flagged == ["t8", "t10"]
    assert "- t8 Fix allreduce fusion for SM120 properly [todo]" in text and "- t10 " in text
    assert "Targets not met yet:\n- g2 " in text and "# GLM-5-NVFP4" in text
    session = load_session(path)
    assert [t.id for t in session.tasks if t.review] == ["t10"]
    assert next(d for d in session.discoveries if d.id == "d8").evidence == "b3"


async def test_records_benchmarks_profiles_files_packages_and_notes(path):
    bench_text = (CORPUS / "sglang-logs" / "026.log").read_text(errors="replace")
    async with client(path) as c:
        assert (await call(c, "record_benchmark", benchmark={"label": "c=1", "concurrency": 1,
                                                             "output_tok_s": 9.5, "profile": "l2"}))[1] == "b4"
        assert (await call(c, "import_bench_serving", text=bench_text, label="c=512 run", profile="l2"))[1] == "b5"
        nothing = await call(c, "import_bench_serving", text="no result here", label="x")
        assert (await call(c, "add_launch_profile", profile={"name": "pdl", "command": "python -m sglang.launch_server",
                                                             "env": {"SGLANG_PDL": "1"}}))[1] == "l3"
        assert not (await call(c, "mark_profile_working", profile_id="l3"))[0]
        assert (await call(c, "record_file", file={"path": "sgl-kernel/x.cuh", "lines": "10-20",
                                                   "state": "applied"}))[1].startswith("f")
        assert (await call(c, "record_package", package={"name": "flashinfer", "version": "0.6.1"}))[1].startswith("p")
        assert not (await call(c, "add_note", text="restarted the server"))[0]
        launch = json.loads(await read(c, "launch"))
    assert nothing[0] and "no 'Serving Benchmark Result' block" in nothing[1]
    session = load_session(path)
    imported = session.benchmarks[-1]
    assert (imported.concurrency, imported.output_tok_s, imported.input_len) == (512, 456.37, 1024)
    assert launch["working"] == ["l3"]
    assert session.files[-1].path == "sgl-kernel/x.cuh" and session.packages[-1].captured is not None
    assert session.journal[-1].kind == "note" and session.journal[-1].text == "restarted the server (via assistant)"
    assert all(e.text.endswith("(via assistant)") for e in session.journal)


async def test_secrets_are_redacted_and_control_characters_inert_in_what_it_returns(path):
    async with client(path) as c:
        await call(c, "add_launch_profile", profile={"name": "with token",
                                                     "command": "sglang serve --api-key sk-live-123 --tp 8",
                                                     "env": {"HF_TOKEN": "hf_abcdef"}})
        await call(c, "add_task", title="evil \x1b[2J\u202e title")
        texts = [await read(c, name) for name in ("launch", "tasks", "timeline", "handoff")]
    joined = "".join(texts)
    assert "sk-live-123" not in joined and "hf_abcdef" not in joined and "[REDACTED]" in texts[0]
    assert "\x1b" not in joined and "\u202e" not in joined
    assert "sk-live-123" in path.read_text(), "the file keeps the real command; only what leaves is masked"


async def test_the_timeline_resource_shows_the_assistants_edits(path):
    async with client(path) as c:
        await call(c, "add_task", title="try fp8 kv cache")
        entries = json.loads(await read(c, "timeline"))
    assert entries[-1]["kind"] == "task.added" and entries[-1]["text"] == "task added: try fp8 kv cache (via assistant)"


async def test_a_file_broken_after_start_is_an_error_not_an_overwrite(path):
    async with client(path) as c:
        path.write_text('title = "half an edit\n')
        is_error, text = await call(c, "add_task", title="x")
        with pytest.raises(Exception, match="s.toml:1"):
            await read(c, "tasks")
    assert is_error and "s.toml:1" in text
    assert path.read_text() == 'title = "half an edit\n'


# ----- sweeps, hosts, targets ------------------------------------------------------------------
def _with_sweep_hosts(path: Path) -> None:
    from cockpit.control.transaction import edit
    from cockpit.model.launch.confirm import log_fingerprint
    from cockpit.model.session import Host, Sweep
    from cockpit.sources.server.confirm_key import confirmation

    def change(e):  # noqa: ANN001, ANN202
        e.apply("sweep added", lambda s: s.sweeps.append(Sweep(id="s1", name="short prompts", input_len=128,
                                                               output_len=256, concurrencies=[1, 2, 4],
                                                               extra_args=["--api-key", "plainsecret42", "--seed", "1"],
                                                               confirmed="hmac1:00")), kind="sweep.added")
        e.apply("sweep s1 (short prompts) run r1 started on l1: 3 points, c=1,2,4", lambda s: None,
                kind="sweep.run.started", ref="s1:r1")
        for c in (1, 2):
            e.add_benchmark(label=f"s1 c={c}", profile="l1", concurrency=c, sweep="s1", sweep_run="r1",
                            total_tok_s=100.0 * c)
        e.apply("sweep s1 run r1 cancelled: 2 of 3 points recorded", lambda s: None,
                kind="sweep.run.cancelled", ref="s1:r1")
        tail = Host(name="gpu1", ssh="root@10.0.0.5:2222", jump="bastion",
                    log_command="journalctl -fu sglang --token s3cr3tvalue99",
                    metrics_url="http://admin:hunter2@127.0.0.1:30000/metrics")
        sealed = tail.model_copy(update={"name": "gpu2"})
        sealed.log_confirmed = confirmation("log", log_fingerprint(sealed))
        tail.log_confirmed = "hmac1:" + "0" * 32
        e.apply("hosts", lambda s: s.hosts.extend([tail, sealed]), kind="host.added")

    edit(path, change, "person")


async def test_the_sweeps_resource_gives_each_workload_and_which_points_each_run_recorded(path):
    _with_sweep_hosts(path)
    async with client(path) as c:
        sweeps = json.loads(await read(c, "sweeps"))
    assert [s["id"] for s in sweeps] == ["s1"]
    sweep = sweeps[0]
    assert (sweep["name"], sweep["dataset"], sweep["input_len"], sweep["output_len"], sweep["concurrencies"]) == (
        "short prompts", "random", 128, 256, [1, 2, 4])
    assert "confirmed" not in sweep  # a person's seal is not the assistant's to copy
    assert sweep["extra_args"] == ["--api-key", "[REDACTED]", "--seed", "1"]
    assert sweep["runs"] == [{"run": "r1", "profile": "l1", "status": "cancelled", "recorded": [1, 2],
                              "missing": [4], "cut_short": True}]


async def test_the_hosts_resource_shows_connections_masks_secrets_and_says_whether_a_log_command_is_confirmed(path):
    _with_sweep_hosts(path)
    async with client(path) as c:
        text = await read(c, "hosts")
    hosts = {h["name"]: h for h in json.loads(text)}
    assert set(hosts) == {"local", "proxmox", "lxc", "gpu1", "gpu2"}
    gpu1 = hosts["gpu1"]
    assert (gpu1["ssh"], gpu1["jump"]) == ("root@10.0.0.5:2222", "bastion")
    assert gpu1["log_command"] == "journalctl -fu sglang --token [REDACTED]"
    assert gpu1["metrics_url"] == "http://[REDACTED]@127.0.0.1:30000/metrics"
    assert gpu1["log_command_confirmed"] is False and hosts["gpu2"]["log_command_confirmed"] is True
    assert "s3cr3tvalue99" not in text and "hunter2" not in text and "hmac1:" not in text
    assert "log_command_confirmed" not in hosts["local"]


async def test_the_targets_resource_gives_each_target_status_over_its_range(path):
    _with_sweep_hosts(path)
    async with client(path) as c:
        targets = json.loads(await read(c, "targets"))
    from cockpit.model.bench.targets import score_all

    session = load_session(path)
    scores = {sc.target.id: sc for sc in score_all(session.goal.targets, session.benchmarks)}
    assert [t["id"] for t in targets] == [t.id for t in session.goal.targets]
    for t in targets:
        sc = scores[t["id"]]
        assert t["status"] == ("no data" if sc.best_value is None else "met" if sc.met else "not met")
        assert t["best_value"] == sc.best_value and t["describe"] == sc.target.describe()
    g2 = next(t for t in targets if t["id"] == "g2")
    assert (g2["concurrency_min"], g2["concurrency_max"], g2["every_run"]) == (1, 2, True)
    assert {t["status"] for t in targets} <= {"met", "not met", "no data"}


# ----- editing and retiring a profile, adding a sweep -------------------------------------------
def _confirm_profile(path: Path, ident: str) -> None:
    from cockpit.control.transaction import edit
    from cockpit.model.launch.confirm import launch_stamp
    from cockpit.sources.server.confirm_key import confirmation

    def change(e):  # noqa: ANN001, ANN202
        p = next(p for p in e.session.launch if p.id == ident)
        host = next((h for h in e.session.hosts if h.name == p.host), None)
        e.edit_record("launch", ident, confirmed=confirmation("launch", launch_stamp(p, host)))

    edit(path, change, "person")


async def test_editing_a_profile_changes_only_what_is_given_and_its_old_confirmation_no_longer_holds(path):
    from cockpit.model.launch.confirm import needs_confirmation as sealed_not
    from cockpit.sources.server.confirm_key import read_key

    def needs_confirmation(profile, key):  # noqa: ANN001, ANN202 -- the seal covers the profile's host too
        return sealed_not(profile, key, next((h for h in load_session(path).hosts if h.name == profile.host), None))

    _confirm_profile(path, "l2")
    before = next(p for p in load_session(path).launch if p.id == "l2")
    assert not needs_confirmation(before, read_key())
    async with client(path) as c:
        renamed = await call(c, "edit_launch_profile", profile="l2", name="l2 renamed", notes="see d3")
        after_rename = next(p for p in load_session(path).launch if p.id == "l2")
        edited = await call(c, "edit_launch_profile", profile="l2", command=before.command + " --tp 4",
                            env={"NCCL_DEBUG": "INFO"})
        nothing = await call(c, "edit_launch_profile", profile="l2")
        missing = await call(c, "edit_launch_profile", profile="l9", name="x")
        launch = json.loads(await read(c, "launch"))
    after = next(p for p in load_session(path).launch if p.id == "l2")
    assert renamed == (False, "l2 edited") and edited == (False, "l2 edited")
    # a new name or notes is the same run: still confirmed
    assert (after_rename.name, after_rename.notes) == ("l2 renamed", "see d3")
    assert not needs_confirmation(after_rename, read_key())
    # a new command / env: the seal is kept but no longer matches, so the person is asked again
    assert after.command == before.command + " --tp 4" and after.env == {"NCCL_DEBUG": "INFO"}
    assert after.confirmed == before.confirmed and needs_confirmation(after, read_key())
    assert (after.status, after.host) == (before.status, before.host)
    assert nothing[0] and "give name, command, env, notes or host" in nothing[1]
    assert missing[0] and "l9" in missing[1]
    assert next(p for p in launch["profiles"] if p["id"] == "l2")["command"].endswith("--tp 4")
    journal = load_session(path).journal
    assert journal[-1].kind == "launch.edited" and journal[-1].text.endswith("(via assistant)")


async def test_retiring_a_profile_marks_it_broken_with_the_reason_and_an_empty_reason_changes_nothing(path):
    async with client(path) as c:
        before = path.read_bytes()
        empty = await call(c, "retire_launch_profile", profile="l1", reason="  ")
        unchanged = path.read_bytes() == before
        retired = await call(c, "retire_launch_profile", profile="l1", reason="superseded by l2")
        launch = json.loads(await read(c, "launch"))
    assert empty[0] and "reason" in empty[1] and unchanged
    assert retired == (False, "l1 retired")
    l1 = next(p for p in load_session(path).launch if p.id == "l1")
    assert (l1.status.value, l1.broken_reason) == ("broken", "retired: superseded by l2")
    assert "l1" not in launch["working"]


async def test_add_sweep_records_the_workload_never_a_confirmation_and_the_sweeps_resource_shows_it(path):
    async with client(path) as c:
        listed = {t.name: t.input_schema for t in (await c.list_tools()).tools}
        added = await call(c, "add_sweep", sweep={"name": "long context", "input_len": 8192, "output_len": 512,
                                                  "concurrencies": [1, 4, 16], "confirmed": "hmac1:" + "0" * 32})
        bad = await call(c, "add_sweep", sweep={"name": "x", "concurrencies": [0]})
        second = await call(c, "add_sweep", sweep={"name": "sharegpt", "dataset": "sharegpt"})
        sweeps = json.loads(await read(c, "sweeps"))
    fields = listed["add_sweep"]["$defs"]["SweepFields"]
    assert "confirmed" not in fields["properties"] and "id" not in fields["properties"]
    assert added == (False, "s1") and second == (False, "s2")
    assert bad[0] and "concurrencies" in bad[1]
    session = load_session(path)
    s1 = session.sweeps[0]
    assert (s1.name, s1.input_len, s1.output_len, s1.concurrencies, s1.confirmed) == (
        "long context", 8192, 512, [1, 4, 16], None)
    assert [s["id"] for s in sweeps] == ["s1", "s2"] and sweeps[1]["dataset"] == "sharegpt"
    assert session.journal[-1].text == "sweep added: sharegpt (via assistant)"


# ----- change notifications ----------------------------------------------------------------------
async def test_a_listener_hears_which_resource_another_writer_changed_and_only_that_one(path):
    import anyio

    from cockpit.control.transaction import edit

    async with Client(build_server(path, watch_s=0.05)) as c:
        uris = ["cockpit://session/tasks", "cockpit://session/files", "cockpit://session/handoff"]
        async with c.listen(resource_subscriptions=uris) as sub:
            await anyio.sleep(0.2)  # the watch has taken its first look
            edit(path, lambda e: e.add_task("written by the TUI"), "person")  # not through this server
            heard: set[str] = set()
            with anyio.fail_after(10):
                async for event in sub:
                    heard.add(str(event.uri))  # type: ignore[union-attr]
                    if heard >= {"cockpit://session/tasks", "cockpit://session/handoff"}:
                        break
            with anyio.move_on_after(0.5):  # anything else it would say has been said by then
                async for event in sub:
                    heard.add(str(event.uri))  # type: ignore[union-attr]
            board = json.loads(await read(c, "tasks"))
            assert not (await call(c, "record_file", file={"path": "sglang/x.py"}))[0]  # a tool's own write
            files_heard = ""
            with anyio.fail_after(10):
                async for event in sub:
                    if str(event.uri) == "cockpit://session/files":  # type: ignore[union-attr]
                        files_heard = str(event.uri)  # type: ignore[union-attr]
                        break
    assert heard == {"cockpit://session/tasks", "cockpit://session/handoff"}  # files did not change: not said
    assert "written by the TUI" in [t["title"] for t in board["todo"]]
    assert files_heard == "cockpit://session/files"
