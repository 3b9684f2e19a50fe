"""The handoff's sweep tables: one per profile and sweep, a row per concurrency, the optional
columns (TTFT p99, the server's TTFT p99, power share, tok/J) only where a run has them; names stay data."""

from __future__ import annotations

from markdown_it import MarkdownIt

from cockpit.model.session import Benchmark, LaunchProfile, Session, Sweep
from cockpit.store.handoff.markdown import render_handoff

MD = MarkdownIt("commonmark", {"html": True}).enable("table")
HOSTILE = "cut|lass <b>x</b> [l](http://e) `code`"


def _session() -> Session:
    return Session(
        launch=[LaunchProfile(id="l1", name=HOSTILE, command="python -m sglang.launch_server --tp 8"),
                LaunchProfile(id="l2", name="trtllm", command="python -m sglang.launch_server --tp 4")],
        sweeps=[Sweep(id="s1", name="random | 1k", input_len=1000, output_len=500)],
        benchmarks=[
            Benchmark(id="b1", label="not a sweep", profile="l1", concurrency=1, total_tok_s=5.0),
            Benchmark(id="b2", label="l1 at 8", profile="l1", concurrency=8, sweep="s1", total_tok_s=800.0,
                      output_tok_s=400.0, ttft_p99_ms=120.0, server_ttft_p99_ms=98.5, power_share=0.62, tok_per_joule=1.25,
                      output_tok_per_joule=0.63),
            Benchmark(id="b3", label="l1 at 1", profile="l1", concurrency=1, sweep="s1", total_tok_s=150.0,
                      output_tok_s=75.0),
            Benchmark(id="b4", label="l2 at 2", profile="l2", concurrency=2, sweep="s1", total_tok_s=300.0,
                      output_tok_s=120.0),
        ],
    )


def _sweeps(text: str) -> str:
    start = text.index("### Sweeps")
    return text[start:]


def _tables(text: str) -> list[list[list[str]]]:
    """Every table as rows of cell texts, as a Markdown renderer reads them."""
    tables: list[list[list[str]]] = []
    row: list[str] | None = None
    tokens = MD.parse(text)
    for i, tok in enumerate(tokens):
        if tok.type == "table_open":
            tables.append([])
        elif tok.type == "tr_open":
            row = []
            tables[-1].append(row)
        elif tok.type == "inline" and row is not None and tokens[i - 1].type in ("th_open", "td_open"):
            row.append(tok.content)
    return tables


def test_a_table_per_profile_with_a_row_per_concurrency_in_order():
    text = render_handoff(_session())
    sweeps = _sweeps(text)
    assert text.index("## Benchmarks") < text.index("### Sweeps")
    assert sweeps.index("(l1), sweep s1") < sweeps.index("**trtllm** (l2), sweep s1")
    assert "random \\| 1k: random 1000/500" in sweeps
    l1, l2 = _tables(sweeps)
    assert l1[0] == ["concurrency", "total tok/s", "output tok/s", "per-stream tok/s", "TTFT p99 ms",
                     "server TTFT p99 ms", "power share", "total tok/J", "output tok/J", "run"]
    # a column of per-stream rates, latencies and tok/J to three figures with their zeros
    assert l1[1:] == [["1", "150", "75", "75.0", "—", "—", "—", "—", "—", "b3"],
                      ["8", "800", "400", "50.0", "120", "98.5", "62%", "1.25", "0.630", "b2"]]
    # b1 has no sweep: not in a sweep table (it stays in the benchmarks table)
    assert all(row[-1] != "b1" for row in l1)
    # no run of l2 has TTFT p99 (the client's or the server's), power or tok/J: those columns are left out
    assert l2 == [["concurrency", "total tok/s", "output tok/s", "per-stream tok/s", "run"],
                  ["2", "300", "120", "60.0", "b4"]]


def test_profile_and_sweep_names_stay_text():
    sweeps = _sweeps(render_handoff(_session()))
    tokens = MD.parse(sweeps)
    inline = [t for tok in tokens if tok.type == "inline" for t in tok.children or []]
    assert not [t for t in inline if t.type in ("html_inline", "link_open")]
    assert not [t for t in inline if t.type == "code_inline"]
    assert [t.content for t in inline if t.type == "text" and "cut" in t.content] == [HOSTILE]
    # the sweep's name, with its pipe, stays in the line above the table, not a cell of it
    assert " (l1), sweep s1 random | 1k: random 1000/500" in [t.content for t in inline]


def test_no_sweep_no_section():
    session = _session()
    session = session.model_copy(update={"benchmarks": [b for b in session.benchmarks if b.sweep is None]})
    assert "### Sweeps" not in render_handoff(session)
