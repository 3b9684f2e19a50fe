"""check / fmt / add from a shell, as scripts and assistants use them."""

import shutil
import subprocess
import sys

from paths import DATA, EXAMPLE_SESSION

from cockpit.store.toml_store import load_session


def cockpit(*args):
    return subprocess.run([sys.executable, "-m", "cockpit", *map(str, args)], capture_output=True, text=True)


def test_check_accepts_the_example_and_fmt_check_finds_it_canonical():
    assert cockpit("check", EXAMPLE_SESSION).returncode == 0
    assert cockpit("fmt", "--check", EXAMPLE_SESSION).returncode == 0


def test_check_reports_a_broken_file_with_position_and_exit_1(tmp_path):
    path = tmp_path / "bad.toml"
    shutil.copy(DATA / "broken" / "unknown_status.toml", path)
    before = path.read_bytes()
    done = cockpit("check", path)
    assert done.returncode == 1
    assert done.stderr.startswith(f"{path}:11:1: tasks[1].status")
    assert cockpit("fmt", path).returncode == 1
    assert path.read_bytes() == before


def test_fmt_normalises_a_hand_edited_file(tmp_path):
    path = tmp_path / "hand.toml"
    path.write_text('title = "hand"\nschema_version = 1\n[[tasks]]\ntitle = "x"\nid = "t1"\n', encoding="utf-8")
    assert cockpit("fmt", "--check", path).returncode == 1
    assert cockpit("fmt", path).returncode == 0
    assert cockpit("fmt", "--check", path).returncode == 0
    text = path.read_text(encoding="utf-8")
    assert text.index("schema_version") < text.index("title") and text.index('id = "t1"') < text.index('title = "x"')


def test_add_commands_edit_the_file_and_journal_it(tmp_path):
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    assert cockpit("add", "task", path, "bench trtllm at c=2", "--status", "doing").stdout.strip() == "t11"
    assert cockpit("add", "discovery", path, "trtllm is faster", "--evidence", "b4").stdout.strip() == "d8"
    assert cockpit("add", "benchmark", path, "trtllm c=2", "--concurrency", "2", "--output-tok-s", "230",
                   "--profile", "l2").stdout.strip() == "b4"
    assert cockpit("add", "note", path, "restarted the server").returncode == 0
    session = load_session(path)
    assert session.tasks[-1].status.value == "doing"
    assert session.benchmarks[-1].profile == "l2"
    assert [e.kind for e in session.journal] == ["task.added", "discovery.added", "benchmark.added", "note"]
    bad = cockpit("add", "benchmark", path, "x", "--profile", "l9")
    assert bad.returncode == 1 and "missing launch id 'l9'" in bad.stderr


def test_bench_import_reads_a_real_bench_serving_block(tmp_path):
    from paths import CORPUS

    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    done = cockpit("bench", "import", path, CORPUS / "sglang-logs" / "026.log", "--profile", "l2", "--label", "c=512 run")
    assert (done.returncode, done.stdout.strip()) == (0, "b4"), done.stderr
    bench = load_session(path).benchmarks[-1]
    # 026.log: "Max reqeuest concurrency: 512" (sic), 456.37 output tok/s, 1,048,576 input tokens over 1024 requests
    assert (bench.label, bench.profile, bench.concurrency) == ("c=512 run", "l2", 512)
    assert bench.output_tok_s == 456.37 and bench.request_throughput == 3.57
    assert bench.input_len == 1024
    missing = cockpit("bench", "import", path, EXAMPLE_SESSION)
    assert missing.returncode == 1 and "no 'Serving Benchmark Result' block" in missing.stderr


def test_add_package_file_and_profile_from_a_shell(tmp_path):
    path = tmp_path / "s.toml"
    shutil.copy(EXAMPLE_SESSION, path)
    done = cockpit("add", "package", path, "sglang", "--version", "0.5.9", "--host", "lxc")
    assert (done.returncode, done.stdout) == (0, "p8\n"), done.stderr
    assert cockpit("add", "file", path, "/opt/sglang/moe.py", "--change", "guard", "--state", "harmless").stdout == "f4\n"
    done = cockpit("add", "profile", path, "tp8 eagle", "--command", "python -m sglang.launch_server --tp 8",
                   "--env", "SGLANG_X=1", "--env", "Y=a=b")
    assert done.stdout == "l3\n", done.stderr
    session = load_session(path)
    package, file, profile = session.packages[-1], session.files[-1], session.launch[-1]
    assert (package.name, package.version, package.host) == ("sglang", "0.5.9", "lxc") and package.captured
    assert (file.path, file.change, file.state.value) == ("/opt/sglang/moe.py", "guard", "harmless")
    assert (profile.name, profile.env, profile.status.value) == ("tp8 eagle", {"SGLANG_X": "1", "Y": "a=b"}, "candidate")
    assert [e.text for e in session.journal[-3:]] == [
        "package added: sglang", "file added: /opt/sglang/moe.py", "launch profile added: tp8 eagle"]
    before = path.read_bytes()
    done = cockpit("add", "package", path, "triton")
    assert done.returncode == 2 and "--version is needed" in done.stderr
    done = cockpit("add", "profile", path, "x", "--command", "python", "--env", "NOEQUALS")
    assert done.returncode == 2 and "--env takes KEY=value" in done.stderr
    assert path.read_bytes() == before


def test_cockpit_version_says_the_package_version():
    import subprocess
    import sys
    from importlib import metadata

    done = subprocess.run([sys.executable, "-m", "cockpit", "--version"], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == f"cockpit {metadata.version('cockpit')}"
