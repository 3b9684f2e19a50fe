"""'Record versions now' on the Packages tab (issue 23, item 6): `v` (in its footer) checks
drift over each host's connection, this machine here, and takes the versions read now as the
record of the changed packages, as `cockpit drift --record` does; `u` undoes it."""

from __future__ import annotations

import sys
from importlib import metadata

from tui_support import make_app, screen_text, until

from cockpit.model.session import LaunchProfile, Package, Session
from cockpit.store.toml_store import save_session


async def test_v_records_the_versions_this_machine_runs_now(tmp_path):
    path = tmp_path / "s.toml"
    save_session(Session(
        packages=[Package(id="p1", name="pytest", version=metadata.version("pytest")),
                  Package(id="p2", name="hypothesis", version="0.0.1")],
        launch=[LaunchProfile(id="l1", name="here", status="working",
                              command=f"{sys.executable} -m sglang.launch_server --tp 1")]), path)
    app = make_app(path)
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("6")
        assert "v Record versions now" in screen_text(app).splitlines()[-1]
        await pilot.press("v")
        now = metadata.version("hypothesis")
        await until(lambda: app.editor.session.packages[1].version == now, pilot, timeout=30)
        assert app.editor.session.packages[0].version == metadata.version("pytest")
        await until(lambda: "Recorded the versions the hosts run now" in screen_text(app), pilot)
        await pilot.press("u")
        assert app.editor.session.packages[1].version == "0.0.1"
