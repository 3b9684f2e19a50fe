"""`cockpit metrics TARGET` as a user runs it: a file, a URL (a real local HTTP server), garbage."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from metrics_server import DATA, MetricsServer  # noqa: E402

ROOT = Path(__file__).resolve().parents[3]


def cockpit(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cockpit", "metrics", *argv], capture_output=True, text=True,
                          cwd=ROOT, timeout=60, input=stdin, env={**os.environ, "NO_COLOR": "1"})


def test_a_file_as_json_has_families_sglang_figures_and_no_gpus():
    r = cockpit(str(DATA / "sglang-0.4-dp2-a.txt"), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["families"]["sglang:num_running_reqs"] == 4
    assert out["families"]["sglang:time_to_first_token_seconds"] == 20
    assert out["sglang"]["num_running_reqs"] == 25 and out["sglang"]["prompt_tokens_total"] == 1_000_000
    assert out["gpus"] == [] and out["missing"] == []
    assert out["latency_since_start_s"]["ttft"]["p50"] > 0


def test_a_0_5_page_with_a_pid_per_rank_reads_each_dp_group_once():
    """DP2 x TP4, each rank's gauges with its own pid (prometheus_client's multiprocess
    collector), 10 running per DP group at 50 % KV."""
    page = str(DATA / "sglang-0.5-dp2-tp4-pid-a.txt")
    out = json.loads(cockpit(page, "--json").stdout)
    assert out["sglang"]["num_running_reqs"] == 20 and out["sglang"]["token_usage"] == 0.5
    text = cockpit(page).stdout
    assert "running 20  queued 2  token usage 50%  gen 1,820 tok/s" in text  # the one formatter


def test_dcgm_text_gives_gpus():
    out = json.loads(cockpit(str(DATA / "dcgm-exporter-a.txt"), "--json").stdout)
    assert [(g["index"], g["power_w"], g["power_limit_w"]) for g in out["gpus"]] == [(0, 612.5, 700.0),
                                                                                    (1, 592.5, 700.0)]
    assert out["sglang"] == {} and out["missing"] == []


def test_an_old_server_is_told_what_it_lacks():
    r = cockpit(str(DATA / "sglang-0.3-old-names.txt"))
    assert r.returncode == 0
    assert "no sglang:num_requests_total: added in SGLang 0.4; is the server older?" in r.stdout
    assert "ITL   since start p50 13 ms" in r.stdout


def test_stdin_and_garbage():
    r = cockpit("-", "--json", stdin=(DATA / "router-sglang_-a.txt").read_text())
    assert json.loads(r.stdout)["sglang_spellings"] == ["sglang_"]
    bad = cockpit("-", stdin="<html>oops</html>\n")
    assert bad.returncode == 1 and "not Prometheus exposition text" in bad.stderr and not bad.stdout


def test_a_url_once():
    with MetricsServer("sglang-0.4-dp2-a.txt") as srv:
        r = cockpit(srv.url, "--once", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["state"] == "ok" and out["url"] == srv.url and out["sglang"]["num_queue_reqs"] == 3


def test_a_url_streamed_gives_rates_on_the_second_scrape():
    with MetricsServer("sglang-0.4-dp2-a.txt", "sglang-0.4-dp2-b.txt") as srv:
        r = cockpit(srv.url, "--count", "2", "--interval", "0.2", "--json")
    first, second = (json.loads(line) for line in r.stdout.splitlines())
    assert first["rates"] == {} and second["rates"]["prompt_tokens_per_s"] > 0
    assert second["latency_window_s"]["ttft"]["p50"] is not None


def test_a_failing_url_exits_1_with_the_reason():
    with MetricsServer("x 1\n", mode="404") as srv:
        r = cockpit(srv.url, "--once")
    assert r.returncode == 1 and "HTTP 404 Not Found" in r.stderr


def test_a_server_restart_between_scrapes_starts_a_new_run():
    with MetricsServer("sglang-0.4-dp2-b.txt", "sglang-0.4-dp2-a.txt") as srv:  # counters go down
        r = cockpit(srv.url, "--count", "2", "--interval", "0.2", "--json")
    first, second = (json.loads(line) for line in r.stdout.splitlines())
    assert (first["run_index"], second["run_index"]) == (0, 1)
    assert second["rates"] == {}  # never a negative rate across the restart


def test_a_name_the_session_lacks_is_said_with_the_names_it_has(tmp_path: Path) -> None:
    from cockpit.model.session import Host, Session
    from cockpit.store.toml_store import save_session

    path = tmp_path / "s.toml"
    save_session(Session(hosts=[Host(name="gpu1"), Host(name="gpu2")]), path)
    res = cockpit("host:nope", "--session", str(path), "--once")
    assert res.returncode == 2 and f"{path}: no host 'nope' (gpu1, gpu2)" in res.stderr
    res = cockpit("prom:lab", "--session", str(path), "--once")
    assert res.returncode == 2 and "no [[prometheus]] named 'lab' (none: add a [[prometheus]] table)" in res.stderr
