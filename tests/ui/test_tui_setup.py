"""Day one from inside the app: a campaign set up from an empty session (goal, a target,
an instruction, a host) through the forms, never touching the file by hand."""

from __future__ import annotations

import tomllib

from tui_support import fill, make_app, screen_text, until

from cockpit.model.session import Session
from cockpit.store.toml_store import save_session
from cockpit.ui.screens.forms.setup import GoalForm, HostForm, InstructionForm, TargetForm
from cockpit.ui.widgets.session.setup_view import SetupList


def _empty(tmp_path):  # noqa: ANN001, ANN202
    path = tmp_path / "day-one.toml"
    save_session(Session(title="day one"), path)
    return path


async def test_a_campaign_is_set_up_from_an_empty_session_with_the_forms(tmp_path):
    path = _empty(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        assert "no targets yet: T adds one" in screen_text(app)

        # a target, from the main tab: T, then the form checks what the model would refuse
        await pilot.press("T")
        form = app.screen
        assert isinstance(form, TargetForm)
        form.query_one("#field-metric").value = "output_tok_s_per_stream"
        fill(form, value="fast", concurrency_min="4", concurrency_max="2")
        await pilot.press("ctrl+s")
        assert "a number, please" in screen_text(app)
        fill(form, value="100")
        await pilot.press("ctrl+s")
        assert "concurrency_min is above concurrency_max" in screen_text(app)
        assert app.screen is form and not app.editor.session.goal.targets
        fill(form, concurrency_min="1")
        await pilot.press("ctrl+s")
        assert "Targets ○ per-stream tok/s ≥100 tok/s: no data" in screen_text(app), "the strip updates at once"

        # the goal: tab 2, the goal row is selected first, e edits it
        await pilot.press("2", "e")
        assert isinstance(app.screen, GoalForm)
        fill(app.screen, summary="GLM-5 as fast as it goes", model="lukealonso/GLM-5-NVFP4",
             hardware="8x RTX PRO 6000")
        await pilot.press("ctrl+s")

        # two instructions, the second moved above the first
        for text in ("never restart the host", "log every run"):
            await pilot.press("i")
            assert isinstance(app.screen, InstructionForm)
            fill(app.screen, text=text)
            await pilot.press("ctrl+s")
        await pilot.press("K")

        # a host: a name the file would refuse is refused under its field
        await pilot.press("H")
        form = app.screen
        assert isinstance(form, HostForm)
        fill(form, name="gpu box", log_path="/var/log/sglang.log", log_command="docker logs -f sglang",
             gpu_interval_s="0")
        await pilot.press("ctrl+s")
        text = screen_text(app)
        assert "a log path or a log command, not both" in text
        fill(form, name="gpu box", log_command="")
        await pilot.press("ctrl+s")
        text = screen_text(app)
        assert "letters, digits, '.', '_' and '-' only" in text and "Input should be greater than or equal to 0.05" in text
        fill(form, name="gpu1", ssh="glm-lxc", jump="bastion", gpu_interval_s="2", metrics_url="localhost:30000")
        form.query_one("#field-gpu_source").value = "nvidia-smi"
        await pilot.press("ctrl+s")
        assert "starts with http:// or https://" in screen_text(app), "the metrics URL needs its scheme"
        fill(form, metrics_url="http://127.0.0.1:30000/metrics")
        await pilot.press("ctrl+s")
        assert app.screen.query_one(SetupList).selected_id() == "host:gpu1"
        text = screen_text(app)
        assert "gpu1  ssh glm-lxc via bastion · log /var/log/sglang.log · GPUs" in text
        assert "GPU interval 2 s" in text and "● gpu1" in text.splitlines()[0], "the header lists it"
        assert " 1. log every run" in text and " 2. never restart the host" in text

        await pilot.press("ctrl+s")
        await until(lambda: app.unsaved_edits == 0, pilot)

    saved = tomllib.loads(path.read_text(encoding="utf-8"))
    assert saved["goal"]["summary"] == "GLM-5 as fast as it goes"
    assert saved["goal"]["model"] == "lukealonso/GLM-5-NVFP4"
    assert saved["goal"]["targets"] == [{"id": "g1", "metric": "output_tok_s_per_stream", "comparator": ">=",
                                         "value": 100.0, "concurrency_min": 1, "concurrency_max": 2}]
    assert [i["text"] for i in saved["instructions"]] == ["log every run", "never restart the host"]
    assert saved["hosts"] == [{"name": "gpu1", "ssh": "glm-lxc", "jump": "bastion",
                               "log_path": "/var/log/sglang.log", "gpu_source": "nvidia-smi",
                               "gpu_interval_s": 2.0, "metrics_url": "http://127.0.0.1:30000/metrics"}]
    kinds = [event["kind"] for event in saved["journal"]]
    assert kinds == ["target.added", "goal.edited", "instruction.added", "instruction.added",
                     "instruction.moved", "host.added"]


async def test_setup_items_are_edited_deleted_and_undone_in_place(session_path):
    app = make_app(session_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.press("2")
        setup = app.screen.query_one(SetupList)
        targets = app.editor.session.goal.targets
        first = targets[0]
        setup.select_id(first.id)
        await pilot.press("e")
        assert isinstance(app.screen, TargetForm)
        fill(app.screen, value="500")
        await pilot.press("ctrl+s")
        assert app.editor.session.goal.targets[0].value == 500
        assert "value: 1000.0 -> 500" in app.editor.session.journal[-1].text
        await pilot.press("d")
        assert first.id not in [t.id for t in app.editor.session.goal.targets]
        await pilot.press("u")
        assert app.editor.session.goal.targets[0].value == 500
        setup.select_id("host:lxc")
        await pilot.press("enter")
        assert isinstance(app.screen, HostForm)
        await pilot.press("escape")
        assert not isinstance(app.screen, HostForm)


async def test_at_80x24_the_host_forms_url_placeholders_are_whole(tmp_path):
    """Issue 39: the DCGM URL's placeholder was cut at 80x24, so what an empty field means
    could not be read."""
    app = make_app(_empty(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2", "H")
        await until(lambda: isinstance(app.screen, HostForm), pilot)
        await pilot.pause()
        shown = screen_text(app)
        assert "empty: http://127.0.0.1:9400/metrics (for GPU source dcgm)" in shown, shown


async def test_a_dcgm_host_is_set_up_with_its_exporters_url_in_the_form(tmp_path):
    """GPU source dcgm reads dcgm-exporter's /metrics; its URL is a field of the form (it was
    reachable only by editing the file), checked as the metrics URL is."""
    path = _empty(tmp_path)
    app = make_app(path)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("2", "H")
        form = app.screen
        assert isinstance(form, HostForm) and "DCGM URL" in screen_text(app)
        fill(form, name="box", dcgm_url="127.0.0.1:9401/metrics")
        form.query_one("#field-gpu_source").value = "dcgm"
        await pilot.press("ctrl+s")
        assert "starts with http:// or https://" in screen_text(app)
        fill(form, dcgm_url="http://127.0.0.1:9401/metrics")
        await pilot.press("ctrl+s")
        await until(lambda: not isinstance(app.screen, HostForm), pilot)
        (host,) = app.editor.session.hosts
        assert (host.gpu_source.value, host.dcgm_url) == ("dcgm", "http://127.0.0.1:9401/metrics")
        await pilot.press("ctrl+s")
    saved = tomllib.loads(path.read_text())
    assert saved["hosts"][0]["dcgm_url"] == "http://127.0.0.1:9401/metrics"
