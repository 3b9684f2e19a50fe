"""A small campaign like the seed's, with fixed timestamps so snapshots are stable."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from cockpit.model.session import (
    Benchmark,
    Discovery,
    FileChange,
    Goal,
    Host,
    Instruction,
    JournalEvent,
    LastAction,
    LaunchProfile,
    Package,
    Session,
    Target,
    Task,
)

T0 = datetime(2026, 11, 28, 21, 0, tzinfo=UTC)


def at(minutes: int) -> datetime:
    return T0 + timedelta(minutes=minutes)


def build_session() -> Session:
    return Session(
        title="GLM-5-NVFP4 on 8x RTX PRO 6000",
        created=at(0),
        goal=Goal(
            summary="Serve GLM-5-NVFP4 (744B MoE) with SGLang on eight PCIe RTX PRO 6000 Blackwell GPUs "
                    "and push throughput towards the targets.",
            model="GLM-5-NVFP4",
            hardware="8x RTX PRO 6000 Blackwell (PCIe only), 2 NUMA nodes",
            targets=[
                Target(id="g1", metric="total_tok_s", value=1000, unit="tok/s", label="total tok/s"),
                Target(id="g2", metric="output_tok_s_per_stream", value=100, unit="tok/s",
                       concurrency_min=1, concurrency_max=2, label="1-2 streams"),
            ],
        ),
        instructions=[
            Instruction(id="i1", text="Never restart the LXC container without asking."),
            Instruction(id="i2", text="Record every benchmark with the launch profile that produced it."),
        ],
        discoveries=[
            Discovery(id="d1", claim="GPUs draw ~330 W of 600 W: the decode loop is starved",
                      status="confirmed", evidence="nvidia-smi: 320-340 W on all 8 GPUs at c=64",
                      tags=["power"], benchmarks=["b1"], tasks=["t2"], created=at(10), updated=at(10)),
            Discovery(id="d2", claim="NCCL over PCIe P2P is the bottleneck at TP=8",
                      evidence="topo -m shows SYS between NUMA nodes", tags=["nccl", "topology"],
                      tasks=["t3"], created=at(20), updated=at(20)),
            Discovery(id="d3", claim="CUDA graphs at bs>64 OOM with mem-fraction 0.92", status="refuted",
                      created=at(30), updated=at(30)),
        ],
        tasks=[
            Task(id="t1", title="Try EP=8 with DeepEP low-latency kernels", status="todo", order=0,
                 created=at(1), updated=at(1)),
            Task(id="t2", title="Raise --max-running-requests to 128", status="todo", order=1,
                 discoveries=["d1"], created=at(2), updated=at(2)),
            Task(id="t3", title="Pin NCCL to one NUMA node", status="doing", order=0,
                 discoveries=["d2"], created=at(3), updated=at(3)),
            Task(id="t4", title="Patch fused MoE config for SM120", status="done", order=0,
                 created=at(4), updated=at(4)),
            Task(id="t5", title="FlashInfer NVFP4 GEMM for SM120", status="blocked", order=0,
                 notes="waiting for upstream", created=at(5), updated=at(5)),
        ],
        files=[
            FileChange(id="f1", host="lxc", path="sglang/srt/layers/moe/fused_moe_triton/configs/E=160.json",
                       lines="1-40", change="tuned block sizes for SM120", state="applied"),
            FileChange(id="f2", host="lxc", path="sglang/srt/distributed/parallel_state.py", lines="212",
                       change="disable custom allreduce", state="problematic"),
        ],
        packages=[
            Package(id="p1", host="lxc", name="sglang", version="0.5.4.post1", captured=at(0)),
            Package(id="p2", host="lxc", name="torch", version="2.9.0+cu130", captured=at(0)),
            Package(id="p3", host="lxc", name="flashinfer-python", version="0.4.1", captured=at(0)),
        ],
        launch=[
            LaunchProfile(id="l1", name="tp8 baseline", host="lxc", status="working",
                          command="python -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8",
                          env={"NCCL_P2P_LEVEL": "SYS"}),
            LaunchProfile(id="l2", name="tp8 + cuda graphs 128", host="lxc",
                          command="python -m sglang.launch_server --model-path /models/GLM-5-NVFP4 --tp 8 "
                                  "--cuda-graph-max-bs 128"),
        ],
        benchmarks=[
            Benchmark(id="b1", label="c=64 random 1k/1k", profile="l1", concurrency=64, input_len=1024,
                      output_len=1024, total_tok_s=612.4, output_tok_s=301.2, ttft_ms=1830, itl_ms=48.2, when=at(40)),
            Benchmark(id="b2", label="c=1 chat", profile="l1", concurrency=1, input_len=512, output_len=512,
                      total_tok_s=96.0, output_tok_s=48.0, ttft_ms=210, itl_ms=20.8, when=at(50)),
            Benchmark(id="b3", label="c=128 random 1k/1k", profile="l2", concurrency=128, input_len=1024,
                      output_len=1024, total_tok_s=788.9, output_tok_s=390.5, ttft_ms=2950, itl_ms=61.0, when=at(60)),
        ],
        last_action=LastAction(text="Benchmarked c=128 with cuda graphs up to bs 128", when=at(61),
                               next_step="Pin NCCL to NUMA node 0 and rerun c=128",
                               fallback="Go back to l1 (tp8 baseline)"),
        hosts=[Host(name="lxc", ssh="glm-lxc", jump="jump", log_path="/var/log/sglang.log", gpu_source="nvidia-smi")],
        journal=[
            JournalEvent(when=at(40), kind="benchmark.added", text="benchmark added: c=64 random 1k/1k"),
            JournalEvent(when=at(60), kind="benchmark.added", text="benchmark added: c=128 random 1k/1k"),
        ],
    )
