"""Does the REAL SGLang bench client run on a CPU-only host, and does `cockpit sweep` record it right?

    .venv/bin/python benchmarks/real_bench_client.py [--version 0.5.23] [--wheel PATH] [--rebuild]

1. Builds (once; cached under /tmp/cockpit-real-bench-client/sglang-VERSION) a venv holding
   the sglang wheel with `--no-deps` plus only what its bench client imports (CLIENT_DEPS:
   found by importing until `--help` ran). Its import chain (sglang/__init__ ->
   srt.utils.common, srt.configs -> multimodal) needs torch, triton and torchvision; from
   PyPI that is the CUDA build of torch and its nvidia-* wheels: several GB, so this is a
   script, not a CI test. Nothing GPU is used: torch.cuda.is_available() is False here.
   (The CPU torch build does not do: PyPI's torchvision is built against CUDA torch, and with
   CPU torch its import fails, "operator torchvision::nms does not exist".)
2. Makes a tiny local tokenizer (no Hugging Face hub here) and a tiny ShareGPT-shaped file:
   `--dataset-name random` samples its prompt tokens from ShareGPT (downloaded unless
   `--dataset-path` names a file).
3. Runs `python -m sglang.benchmark.serving` and the deprecated `python -m sglang.bench_serving`
   against the STAND-IN SGLang server (cockpit/sandbox/sglang_server.py) and checks: exit 0, the
   main-run marker cockpit waits for printed, the JSONL key set (and order) equal to
   tests/data/bench/bench_serving_0.5.23.jsonl.
4. Runs `cockpit sweep` with a profile whose `python` is that venv's, and checks the recorded
   benchmark against the client's JSONL (every field of RECORD_FIELDS) and `bench_client`.

Prints a table and a JSON object (also written to benchmarks/out/real_bench_client.json).
Exit 0 when every check passed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from sweep_support import StandinServer  # noqa: E402

from cockpit.live.experiment.sweep_client_output import MAIN_RUN_MARK  # noqa: E402
from cockpit.model.session import Host, LaunchProfile, Session, Sweep  # noqa: E402
from cockpit.parse.bench.result_jsonl import RECORD_FIELDS  # noqa: E402
from cockpit.store.toml_store import load_session, save_session  # noqa: E402

FIXTURE = ROOT / "tests" / "data" / "bench" / "bench_serving_0.5.23.jsonl"
# What sglang 0.5.23's bench client imports, as pip names (its own metadata asks for ~80
# packages, most of them kernels; these are the ones the import chain of --help reaches).
# transformers / tokenizers pinned as the wheel pins them.
CLIENT_DEPS = ["numpy", "aiohttp", "msgspec", "orjson", "requests", "tqdm", "transformers==5.19.0",
               "tokenizers==0.23.2", "psutil", "pybase64", "pillow", "packaging", "starlette", "pyzmq",
               "IPython", "datasets", "apache-tvm-ffi", "sentencepiece", "compressed-tensors", "gguf",
               "torch", "torchvision", "triton"]
MODULES = ("sglang.benchmark.serving", "sglang.bench_serving")
# no hub here: without this, transformers retries huggingface.co for a minute per run
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}

TOKENIZER_CODE = r'''
import json, sys
from pathlib import Path
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import PreTrainedTokenizerFast
out = Path(sys.argv[1])
vocab = {"[UNK]": 0, **{f"w{i}": i + 1 for i in range(999)}}
tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
PreTrainedTokenizerFast(tokenizer_object=tok, unk_token="[UNK]").save_pretrained(out / "tok")
rows = [{"conversations": [{"from": "human", "value": " ".join(f"w{(i * 7 + j) % 999}" for j in range(20 + i))},
                           {"from": "gpt", "value": " ".join(f"w{j}" for j in range(10))}]} for i in range(16)]
(out / "sharegpt_tiny.json").write_text(json.dumps(rows))
'''


def _du_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sm", str(path)], capture_output=True, text=True).stdout.split()
    return float(out[0]) if out else 0.0


def build_venv(venv: Path, sglang: str, rebuild: bool) -> dict:
    done = venv / ".built"
    if done.exists() and not rebuild:
        return {**json.loads(done.read_text()), "cached": True}
    shutil.rmtree(venv, ignore_errors=True)
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, "--no-deps", sglang], check=True)
    subprocess.run([*pip, *CLIENT_DEPS], check=True)
    info = {"install_s": round(time.monotonic() - start, 1), "venv_mb": _du_mb(venv),
            "sglang_mb": _du_mb(venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}"
                                / "site-packages" / "sglang")}
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format", "json"],
                            capture_output=True, text=True, check=True).stdout
    info["packages"] = len(json.loads(listed))
    done.write_text(json.dumps(info))
    return {**info, "cached": False}


def run_client(py: str, module: str, port: int, work: Path) -> dict:
    out_file = work / f"{module}.jsonl"
    argv = [py, "-u", "-m", module, "--backend", "sglang", "--host", "127.0.0.1", "--port", str(port),
            "--dataset-name", "random", "--dataset-path", str(work / "sharegpt_tiny.json"),
            "--tokenizer", str(work / "tok"), "--random-input-len", "32", "--random-output-len", "16",
            "--num-prompts", "8", "--max-concurrency", "2", "--output-file", str(out_file)]
    start = time.monotonic()
    res = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, **OFFLINE}, timeout=300)
    row = {"module": module, "rc": res.returncode, "wall_s": round(time.monotonic() - start, 1),
           "marker": any(MAIN_RUN_MARK in line for line in res.stdout.splitlines()),
           "future_warning": "FutureWarning" in res.stderr and "deprecated" in res.stderr}
    if out_file.exists():
        record = json.loads(out_file.read_text().splitlines()[-1])
        fixture = json.loads(FIXTURE.read_text().splitlines()[0])
        row.update(keys_match=list(record) == list(fixture), only_real=sorted(set(record) - set(fixture)),
                   only_fixture=sorted(set(fixture) - set(record)),
                   total_throughput=record["total_throughput"], mean_ttft_ms=record["mean_ttft_ms"])
    else:
        row.update(keys_match=False, tail=(res.stdout + res.stderr)[-2000:])
    return row


def run_sweep(py: str, work: Path) -> dict:
    log = work / "server.log"
    srv = StandinServer(tok_s=2000, log_path=log)
    try:
        path = work / "s.toml"
        save_session(Session(
            hosts=[Host(name="local", run_dir=str(work / "runs"), log_path=str(log))],
            launch=[LaunchProfile(id="l1", name="base", host="local", python=py,
                                  command=f"python -m sglang.launch_server --model-path m --port {srv.port}")],
            sweeps=[Sweep(id="s1", name="real client", input_len=32, output_len=16, concurrencies=[2], prompts=8,
                          extra_args=["--tokenizer", str(work / "tok"), "--dataset-path",
                                      str(work / "sharegpt_tiny.json")])]), path)
        res = subprocess.run([sys.executable, "-m", "cockpit", "sweep", str(path), "s1", "--yes"],
                             capture_output=True, text=True, env={**os.environ, **OFFLINE}, cwd=ROOT, timeout=300)
    finally:
        srv.close()
    row: dict = {"rc": res.returncode, "said": [ln for ln in res.stdout.splitlines() if "bench client:" in ln]}
    benches = load_session(path).benchmarks
    files = sorted((work / "runs").rglob("*.jsonl"))
    if res.returncode != 0 or len(benches) != 1 or not files:
        row["tail"] = (res.stdout + res.stderr)[-2000:]
        row["ok"] = False
        return row
    (bench,) = benches
    record = json.loads(files[-1].read_text().splitlines()[-1])
    mismatched = {name: (getattr(bench, name), record[key]) for key, name in RECORD_FIELDS.items()
                  if key in record and not math.isclose(getattr(bench, name) or 0.0, record[key],
                                                        rel_tol=1e-3, abs_tol=1e-3)}
    row.update(bench_client=bench.bench_client, fields_checked=len(RECORD_FIELDS), mismatched=mismatched,
               total_tok_s=bench.total_tok_s, ttft_ms=bench.ttft_ms,
               ok=not mismatched and bench.bench_client == MODULES[0])
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--version", default="0.5.23")
    ap.add_argument("--wheel", help="a local sglang wheel (default: sglang==VERSION from the index)")
    ap.add_argument("--rebuild", action="store_true", help="build the cached venv anew")
    args = ap.parse_args()
    venv = Path(tempfile.gettempdir()) / "cockpit-real-bench-client" / f"sglang-{args.version}"
    venv.parent.mkdir(parents=True, exist_ok=True)
    report: dict = {"venv": str(venv), **build_venv(venv, args.wheel or f"sglang=={args.version}", args.rebuild)}
    py = str(venv / "bin" / "python")
    probe = subprocess.run([py, "-c", "import torch, triton; print(torch.__version__, triton.__version__, "
                                      "torch.cuda.is_available())"], capture_output=True, text=True)
    report["torch_triton_cuda"] = probe.stdout.strip()
    report["help_rc"] = {m: subprocess.run([py, "-m", m, "--help"], capture_output=True).returncode for m in MODULES}
    with tempfile.TemporaryDirectory(prefix="realclient-") as tmp:
        work = Path(tmp)
        subprocess.run([py, "-c", TOKENIZER_CODE, str(work)], check=True)
        srv = StandinServer(tok_s=2000)
        try:
            report["clients"] = [run_client(py, m, srv.port, work) for m in MODULES]
        finally:
            srv.close()
        report["sweep"] = run_sweep(py, work)
    ok = (all(rc == 0 for rc in report["help_rc"].values())
          and all(c["rc"] == 0 and c["marker"] and c["keys_match"] for c in report["clients"])
          and report["sweep"]["ok"])
    report["ok"] = ok

    print(f"venv {venv}: {report['venv_mb']:.0f} MB, {report['packages']} packages, "
          f"install {report['install_s']} s{' (cached)' if report['cached'] else ''}; "
          f"torch triton cuda? {report['torch_triton_cuda']}")
    print(f"{'module':<28} {'rc':>3} {'marker':>7} {'keys=fixture':>13} {'wall_s':>7} {'tok/s':>9} {'TTFT ms':>8}")
    for c in report["clients"]:
        print(f"{c['module']:<28} {c['rc']:>3} {str(c['marker']):>7} {str(c['keys_match']):>13} {c['wall_s']:>7} "
              f"{c.get('total_throughput', 0):>9.1f} {c.get('mean_ttft_ms', 0):>8.2f}")
    s = report["sweep"]
    print(f"cockpit sweep: rc {s['rc']}, bench_client {s.get('bench_client')}, "
          f"{s.get('fields_checked', 0)} fields checked, mismatched {s.get('mismatched')}")
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "real_bench_client.json").write_text(json.dumps(report, indent=1))
    print(json.dumps(report))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
