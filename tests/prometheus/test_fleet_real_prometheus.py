"""The fleet read through a REAL Prometheus (Debian's `prometheus`, tests/prometheus_fixture.py)
scraping the stand-in fleet (tests/fleet_exporter.py): node-a (dcgm + SGLang 0.4), node-b
(dcgm-exporter's default counters: no power limit; the router's `sglang_` re-export),
node-c (dcgm only), node-d (SGLang 0.3's old names). Basic auth is on: credentials come
from the environment variable `auth_env` names. The Fleet tab in the app with several
`[[prometheus]]` (this one under two names and an unreachable URL): `s` switches between them."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from prometheus_fixture import AUTH_ENV, PASSWORD, USER, prom_auth, prometheus_fleet  # noqa: F401

from cockpit.parse.metrics.fleet_snapshot import FleetSnapshot
from cockpit.sources.metrics.fleet_feed import FleetFeed
from cockpit.sources.metrics.prometheus_api import PrometheusClient, PrometheusError

REPO = Path(__file__).resolve().parents[2]


def refresh(feed: FleetFeed, history: bool = False) -> FleetSnapshot:
    async def go() -> FleetSnapshot:
        if history:
            assert await feed.load_history() is None
        return await feed.refresh()

    return asyncio.run(asyncio.wait_for(go(), 60))  # a guard against a stall, not a timing


def feed_for(prom, auth_env: str | None = AUTH_ENV, **kw) -> FleetFeed:  # noqa: ANN001
    return FleetFeed("lab", prom.url, auth_env=auth_env, interval_s=1.0, history_h=0.02, **kw)


def test_every_host_s_gpus_and_servers_come_from_prometheus(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    snap = refresh(feed_for(prometheus_fleet))
    assert snap.state == "ok", snap.error
    hosts = {h.name: h for h in snap.hosts}
    assert sorted(hosts) == ["node-a", "node-b", "node-c", "node-d"]
    a = hosts["node-a"]
    assert [g.index for g in a.gpus] == ["0", "1", "2", "3"]
    assert [g.limit_w for g in a.gpus] == [700.0] * 4          # dcgm-exporter-a.txt's POWER_MGMT_LIMIT
    assert [g.util_pct for g in a.gpus] == [97.0, 94.0, 91.0, 88.0]
    assert all(g.power_w and 400 < g.power_w < 700 for g in a.gpus)
    (server,) = a.servers
    assert server.instance == "node-a:30000" and server.missing == ()
    assert server.get("gen_tok_s") and server.get("gen_tok_s") > 0   # a rate of the advancing counter
    # the fixtures' TTFT histogram: most observations in (0.8, 1] s; ITL in (15, 20] ms
    assert 0.8 < server.get("ttft_p50") <= 1.0 and server.get("ttft_p99") > server.get("ttft_p50")
    assert 0.015 < server.get("itl_p50") <= 0.020
    # two DP groups (12 and 13 running, moving up slowly); every TP rank summed would be twice that
    assert 25 <= server.get("running") < 40
    # node-b: the router's sglang_ spelling, and no power limit said, not zero
    b = hosts["node-b"]
    assert b.servers[0].get("gen_tok_s") and b.servers[0].missing == ()
    assert b.missing == ("DCGM_FI_DEV_POWER_MGMT_LIMIT",) and b.limit_w is None
    assert hosts["node-c"].servers == () and len(hosts["node-c"].gpus) == 4
    # node-d: 0.3.x has no num_requests_total (said); its ITL is time_per_output_token_seconds
    d = hosts["node-d"].servers[0]
    assert d.missing == ("sglang:num_requests_total",)
    assert "itl_p50" in d.figures and "ttft_p50" in d.figures


def test_history_of_the_last_hours_is_there_on_open(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    prometheus_fleet.wait_for('count_over_time(DCGM_FI_DEV_POWER_USAGE{gpu="0",Hostname="node-a"}[1m]) >= 5')
    feed = feed_for(prometheus_fleet)
    snap = refresh(feed, history=True)
    a = next(h for h in snap.hosts if h.name == "node-a")
    # several points from query_range before the one this refresh added
    assert len(a.power_history) >= 3
    assert len(a.servers[0].history) >= 3


def test_a_session_host_prometheus_has_no_series_for_is_said(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    snap = refresh(feed_for(prometheus_fleet, expected={"gpu9": ("10.0.0.9",), "node-a": ()}))
    rows = {h.name: h for h in snap.hosts}
    assert rows["gpu9"].state == "missing" and "no series" in rows["gpu9"].note
    assert rows["gpu9"].gpus == () and rows["gpu9"].power_w is None
    assert rows["node-a"].session_host == "node-a"


def test_a_target_prometheus_cannot_scrape_is_said(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    exporter = prometheus_fleet.exporter
    exporter.down("/node-c/dcgm")
    try:
        prometheus_fleet.wait_for('up{instance="node-c:9400"} == 0')
        snap = refresh(feed_for(prometheus_fleet))
    finally:
        exporter.down("/node-c/dcgm", False)
    c = next(h for h in snap.hosts if h.name == "node-c")
    assert c.state == "down" and "node-c:9400" in c.note and c.gpus == ()
    prometheus_fleet.wait_for('up{instance="node-c:9400"} == 1')


def test_wrong_or_missing_credentials_are_a_401_state(prometheus_fleet, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv(AUTH_ENV, f"{USER}:not-the-password")
    snap = refresh(feed_for(prometheus_fleet))
    assert (snap.state, snap.error_kind) == ("failing", "unauthorized")
    assert f"${AUTH_ENV}" in (snap.error or "") and "not-the-password" not in (snap.error or "")
    snap = refresh(feed_for(prometheus_fleet, auth_env=None))
    assert snap.error_kind == "unauthorized" and "auth_env" in (snap.error or "")
    monkeypatch.delenv(AUTH_ENV)
    snap = refresh(feed_for(prometheus_fleet))
    assert snap.error_kind == "no-credentials" and AUTH_ENV in (snap.error or "")


def test_bad_promql_and_an_unreachable_prometheus_are_errors_with_their_kind(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    client = PrometheusClient(prometheus_fleet.url, auth_env=AUTH_ENV)
    with pytest.raises(PrometheusError) as bad:
        asyncio.run(client.query("sum(rate(up[1m]"))
    assert bad.value.kind == "bad-query" and "parse error" in str(bad.value)
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again on leaving: nothing listens there
    with pytest.raises(PrometheusError) as gone:
        asyncio.run(PrometheusClient(f"http://127.0.0.1:{port}").query("up"))
    assert gone.value.kind == "unreachable"


def test_a_hanging_prometheus_is_a_state_not_a_stall(prometheus_fleet, prom_auth) -> None:  # noqa: F811
    feed = feed_for(prometheus_fleet)  # interval 1 s: each query may take 2 s
    assert refresh(feed).state == "ok"
    prometheus_fleet.pause()  # SIGSTOP: connections are accepted, nothing answers
    try:
        snap = refresh(feed)
    finally:
        prometheus_fleet.resume()
    assert (snap.state, snap.error_kind) == ("failing", "timeout")
    assert any(h.name == "node-a" and h.gpus for h in snap.hosts)  # the last good figures stay
    assert refresh(feed).state == "ok"  # and it comes back by itself


def _cli(*args: str, env_extra: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO), **(env_extra or {})}
    return subprocess.run([sys.executable, "-m", "cockpit", "metrics", *args], capture_output=True, text=True,
                          env=env, timeout=120)


def test_cockpit_metrics_prints_the_fleet_from_prometheus(prometheus_fleet, tmp_path) -> None:  # noqa: F811
    env = {AUTH_ENV: f"{USER}:{PASSWORD}"}
    done = _cli("--prometheus", prometheus_fleet.url, "--auth-env", AUTH_ENV, "--once", "--json", env_extra=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [h["name"] for h in out["hosts"]] == ["node-a", "node-b", "node-c", "node-d"]
    assert out["hosts"][0]["servers"][0]["instance"] == "node-a:30000"
    # prom:NAME from a session's [[prometheus]]; the text is the Fleet tab's
    session = tmp_path / "s.toml"
    session.write_text(f'schema_version = 1\ntitle = "fleet"\n\n[[hosts]]\nname = "node-a"\n'
                       f'gpu_source = "dcgm"\n\n[[hosts]]\nname = "gpu9"\ngpu_source = "dcgm"\n\n'
                       f'[[prometheus]]\nname = "lab"\nurl = "{prometheus_fleet.url}"\nauth_env = "{AUTH_ENV}"\n'
                       f'interval_s = 1\nhistory_h = 0.02\n')
    done = _cli("prom:lab", "--session", str(session), "--once", "--width", "100", env_extra=env)
    assert done.returncode == 0, done.stderr
    assert "node-a:30000" in done.stdout and "4 hosts" in done.stdout
    assert "gpu9" in done.stdout and "missing: a session host with no series" in done.stdout
    # a 401 is said, exit status 1
    done = _cli("prom:lab", "--session", str(session), "--once", env_extra={AUTH_ENV: "cockpit:wrong"})
    assert done.returncode == 1 and "refused the credentials" in done.stderr


def test_cockpit_metrics_fleet_takes_label_matchers_and_says_its_rate_window(prometheus_fleet) -> None:  # noqa: F811
    env = {AUTH_ENV: f"{USER}:{PASSWORD}"}
    done = _cli("--prometheus", prometheus_fleet.url, "--auth-env", AUTH_ENV, "--once", "--json",
                "--match", '{fleet_kind="dcgm"}', env_extra=env)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert [h["name"] for h in out["hosts"]] == ["node-a", "node-c"]  # node-a's server is another kind
    # 5 s refreshes of 1 s scrapes: a refresh plus a scrape
    assert out["hosts"][0]["servers"] == [] and out["rate_window"] == "rate over 6 s, percentiles over 60 s (scrape 1 s)"
    bad = _cli("--prometheus", prometheus_fleet.url, "--once", "--match", "{fleet_kind=dcgm}", env_extra=env)
    assert bad.returncode == 2 and "a quoted value expected after fleet_kind=" in bad.stderr


# ----- the Fleet tab with several [[prometheus]]: `s` shows the next, only it is queried -----------

def _fleet_session(tmp_path: Path, *sources: tuple[str, str], auth: bool = True) -> Path:
    path = tmp_path / "fleet.toml"
    text = 'schema_version = 1\ntitle = "fleet"\n'
    for name, url in sources:
        text += (f'\n[[prometheus]]\nname = "{name}"\nurl = "{url}"\n' + (f'auth_env = "{AUTH_ENV}"\n' if auth else "")
                 + 'interval_s = 1\nhistory_h = 0.02\n')
    path.write_text(text)
    return path


def _fleet_app(path: Path):  # noqa: ANN202
    from cockpit.sources.feeds import LiveSources
    from cockpit.sources.metrics.fleet_sources import FleetSources
    from cockpit.store.toml_store import load_session
    from cockpit.ui.app import CockpitApp

    session = load_session(path)
    return CockpitApp(session, path, sources=LiveSources(fleet=FleetSources.for_session(session)),
                      keymap={}, watch_interval_s=None)


def _seen(app) -> tuple[str, str, str]:  # noqa: ANN001
    """The Fleet pane as a person reads it: border title, state line, host rows."""
    from textual.widgets import Static

    from cockpit.ui.widgets.fleet.pane import FleetPane, FleetTable

    pane = app.main_screen.query_one(FleetPane)
    table = pane.query_one(FleetTable)
    rows = table.text.plain if table.display else ""
    return str(pane.border_title), str(pane.query_one(".fleet-state", Static).render()), rows


def _host_rows(rows: str) -> list[str]:
    """The host rows' names with their cursor mark (server rows are indented two spaces)."""
    return [line.split()[0] if line[0] == "▸" else " " + line.split()[0]
            for line in rows.splitlines()[2:] if line[:1] in "▸ " and line[1:2] not in (" ", "")]


def _footer_offers(app, verb: str) -> bool:  # noqa: ANN001
    """The footer's keys (the bindings the focused pane offers now)."""
    return any(b.binding.description == verb for b in app.screen.active_bindings.values())


async def _until(pilot, app, check) -> tuple[str, str, str]:  # noqa: ANN001
    async def wait() -> tuple[str, str, str]:
        while not check(*(seen := _seen(app))):
            await pilot.pause(0.05)
        return seen

    try:
        return await asyncio.wait_for(wait(), 30)  # a guard against a stall, not a timing
    except TimeoutError:
        raise AssertionError(f"the Fleet pane never showed it; it shows {_seen(app)}") from None


async def test_s_switches_the_fleet_tab_between_prometheus_sources_and_back(
        prometheus_fleet, prom_auth, tmp_path, monkeypatch) -> None:  # noqa: F811
    """lab and lab-too: the fixture's Prometheus under two names (two working sources
    without a second server); gone: a URL nothing listens on."""
    from prometheus_fixture import free_port

    from cockpit.ui.widgets.fleet.pane import FleetPane

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    url, gone = prometheus_fleet.url, f"http://127.0.0.1:{free_port()}"  # nothing listens there: refused
    app = _fleet_app(_fleet_session(tmp_path, ("lab", url), ("lab-too", url), ("gone", gone)))
    every_host = ["▸node-a", " node-b", " node-c", " node-d"]

    def fleet_workers() -> int:
        return sum(1 for w in app.workers if w.group == "live-fleet" and not w.is_finished)

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("F")
        title, state, rows = await _until(pilot, app, lambda t, s, r: "hosts" in t)
        assert title == "Fleet · lab (1/3) · 4/4 hosts"
        assert state.startswith(f"Prometheus lab · {url} every 1 s · 4 hosts")
        assert _host_rows(rows) == every_host and "node-a:30000" in rows
        assert "answered" in str(app.main_screen.query_one(FleetPane).border_subtitle)
        assert _footer_offers(app, "Next source") and _footer_offers(app, "Focus host")
        await pilot.press("down")
        assert _host_rows(_seen(app)[2])[:2] == [" node-a", "▸node-b"]

        await pilot.press("s")  # another source: its own rows, the cursor on its first host
        title, state, rows = await _until(pilot, app, lambda t, s, r: "lab-too" in t and "hosts" in t)
        assert title == "Fleet · lab-too (2/3) · 4/4 hosts"
        assert state.startswith(f"Prometheus lab-too · {url} every 1 s · 4 hosts")
        assert _host_rows(rows) == every_host
        assert fleet_workers() == 1  # only the shown source is queried

        await pilot.press("s")  # the unreachable one says so
        title, state, rows = await _until(pilot, app, lambda t, s, r: "unreachable" in s)
        assert title == "Fleet · gone (3/3) · 0/0 hosts"
        assert state.startswith(f"Prometheus gone · {gone} every 1 s")
        assert "refused the connection" in state and "no figures from it yet" in state
        assert _host_rows(rows) == [] and "node-a" not in rows
        assert "answered" not in str(app.main_screen.query_one(FleetPane).border_subtitle)  # never did
        assert fleet_workers() == 1

        await pilot.press("s")  # and round to the first: its hosts again, its own state
        title, state, rows = await _until(pilot, app, lambda t, s, r: "lab (1/3)" in t and "hosts" in t)
        assert title == "Fleet · lab (1/3) · 4/4 hosts"
        assert "unreachable" not in state and "4 hosts" in state
        assert _host_rows(rows) == every_host and "node-a:30000" in rows
        assert fleet_workers() == 1


async def test_one_prometheus_source_shows_no_position_and_offers_no_switch(tmp_path, monkeypatch) -> None:
    from prometheus_fixture import free_port

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    gone = f"http://127.0.0.1:{free_port()}"
    app = _fleet_app(_fleet_session(tmp_path, ("gone", gone), auth=False))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("F")
        await _until(pilot, app, lambda t, s, r: "unreachable" in s)
        # no host rows: nothing to focus; one source: nothing to switch to
        assert not _footer_offers(app, "Focus host") and not _footer_offers(app, "Next source")
        await pilot.press("s")
        title, state, _rows = await _until(pilot, app, lambda t, s, r: "unreachable" in s)
        assert title == "Fleet · gone · 0/0 hosts"
        assert state.startswith(f"Prometheus gone · {gone} every 1 s")


async def test_a_prometheus_added_or_edited_while_the_app_is_open_is_used_at_once(
        prometheus_fleet, prom_auth, tmp_path, monkeypatch) -> None:  # noqa: F811
    """Another writer (`cockpit` in a shell, an editor) adds a [[prometheus]] to the open
    session, then narrows its `match`: the Fleet tab shows it, then only the matched targets,
    with no restart."""
    from cockpit.model.session import PrometheusSource
    from cockpit.store.toml_store import load_session, save_session
    from cockpit.ui.widgets.fleet.pane import FleetPane

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = _fleet_session(tmp_path)  # no [[prometheus]] yet: opened as `cockpit` opens it (no fleet feed)
    from cockpit.sources.feeds import LiveSources
    from cockpit.ui.app import CockpitApp

    app = CockpitApp(load_session(path), path, sources=LiveSources(), keymap={}, watch_interval_s=None)

    def outside(**fields) -> None:  # noqa: ANN003
        session = load_session(path)
        source = PrometheusSource(name="lab", url=prometheus_fleet.url, auth_env=AUTH_ENV, interval_s=1,
                                  history_h=0.02, **fields)
        save_session(session.model_copy(update={"prometheus": [source]}), path)

    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("F")
        await pilot.pause()
        help_text = str(app.main_screen.query_one(FleetPane).query_one(".fleet-help").render())
        assert "[[prometheus]]" in help_text  # says how to add one
        outside()
        await app.saving.check_disk()
        title, state, rows = await _until(pilot, app, lambda t, s, r: "hosts" in t)
        assert title == "Fleet · lab · 4/4 hosts"
        assert _host_rows(rows) == ["▸node-a", " node-b", " node-c", " node-d"]

        outside(match={"fleet_kind": "dcgm"})  # node-a's and node-c's dcgm-exporter only
        await app.saving.check_disk()
        title, state, rows = await _until(pilot, app, lambda t, s, r: "2/2 hosts" in t)
        assert _host_rows(rows) == ["▸node-a", " node-c"] and "node-a:30000" not in rows

        outside(match='{fleet_kind=~"dcgm|sglang"}')  # and node-a's server again
        await app.saving.check_disk()
        title, state, rows = await _until(pilot, app, lambda t, s, r: "node-a:30000" in r)
        assert _host_rows(rows) == ["▸node-a", " node-c"]


async def test_a_match_prometheus_would_refuse_opens_the_session_and_the_fleet_tab_says_why(
        prometheus_fleet, prom_auth, tmp_path, monkeypatch) -> None:  # noqa: F811
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    path = _fleet_session(tmp_path, ("lab", prometheus_fleet.url))
    path.write_text(path.read_text() + "match = '{job=~\"(?!other).*\"}'\n\n[[tasks]]\nid = \"t1\"\ntitle = \"kept\"\n")
    app = _fleet_app(path)  # loads: one regex does not keep the session from opening
    assert [t.title for t in app.editor.session.tasks] == ["kept"]
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("F")
        _title, state, _rows = await _until(pilot, app, lambda t, s, r: "bad-match" in s)
        assert "[[prometheus]] lab: match job=~'(?!other).*': not a regular expression Prometheus takes" in state
