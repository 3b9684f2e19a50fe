"""The Markdown handoff treats session text as data: no HTML, no link, no fence break-out,
no heading from a newline; checked by parsing the export as a renderer would (markdown-it,
the parser Textual's Markdown widget uses, with raw HTML and tables on)."""

from __future__ import annotations

import html

import pytest
from markdown_it import MarkdownIt

from hostile import hostile_session

from cockpit.model.session import LaunchProfile, Session, Task
from cockpit.store.handoff.markdown import render_handoff
from cockpit.store.redact import MASK

HEADINGS = ["1. Goal", "2. Instructions", "3. Discoveries", "4. Accomplished", "5. Relevant files",
            "6. Key package versions", "7. Working launch command", "8. Last action", "Benchmarks", "Hosts"]
MD = MarkdownIt("commonmark", {"html": True}).enable("table")


def _tokens(text: str) -> list:
    out = []
    stack = MD.parse(text)
    while stack:
        token = stack.pop(0)
        out.append(token)
        stack[:0] = token.children or []
    return out


def _export(vector: str) -> tuple[str, list]:
    text = render_handoff(hostile_session(vector))
    return text, _tokens(text)


def _headings(tokens: list) -> list[str]:
    return [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"]


@pytest.mark.parametrize("tag", ["<script>alert(1)</script>", '<img src=x onerror="alert(1)">',
                                  "<!-- x --><iframe src=//e.vil>"])
def test_html_in_session_text_is_inert_text(tag):
    text, tokens = _export(tag)
    assert not [t for t in tokens if t.type.startswith("html")], "no raw HTML reaches the renderer"
    rendered = MD.render(text)
    assert "<script" not in rendered and "<img" not in rendered and "<iframe" not in rendered
    assert html.escape(tag) in rendered
    assert _headings(tokens) == HEADINGS


@pytest.mark.parametrize("link", ["[click](javascript:alert(1))", "![x](javascript:alert(1))",
                                  "<javascript:alert(1)>", "[x]: javascript:alert(1)"])
def test_links_in_session_text_are_not_links(link):
    text, tokens = _export(link)
    assert not [t for t in tokens if t.type in ("link_open", "image")]
    assert "javascript:" not in "".join(str(t.attrs) for t in tokens)
    assert html.escape(link, quote=False) in MD.render(text), "shown as the text it is"


def test_a_backquote_fence_in_a_launch_command_stays_inside_its_block():
    session = Session(title="t", launch=[
        LaunchProfile(id="l1", name="w", status="working", command="python -m x ```\n## injected\n````\nrm -rf /"),
        LaunchProfile(id="l2", name="o", command="python -m y `` ` ```` --z"),
    ])
    text = render_handoff(session)
    tokens = _tokens(text)
    fences = [t for t in tokens if t.type == "fence"]
    assert [f.content for f in fences] == ["python -m x ```\n## injected\n````\nrm -rf /\n"]
    assert fences[0].info == "bash"
    assert _headings(tokens) == HEADINGS, "nothing after the fence became a heading, nothing was swallowed"
    spans = [t.content for t in tokens if t.type == "code_inline"]
    assert "python -m y `` ` ```` --z" in spans


def test_a_newline_in_a_title_does_not_start_a_block():
    session = Session(title="campaign\n# injected title", tasks=[
        Task(id="t1", title="fix it\n## 5. Injected\n- [x](javascript:1)", notes="one\n# two\n> three\n1. four\n---"),
    ])
    text = render_handoff(session)
    tokens = _tokens(text)
    assert [t for t in tokens if t.type == "heading_open" and t.tag == "h1"][0].map[0] == 0
    h1 = [tokens[i + 1].content for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h1"]
    assert h1 == ["campaign # injected title"]
    assert _headings(tokens) == HEADINGS
    assert not [t for t in tokens if t.type in ("blockquote_open", "ordered_list_open", "hr", "link_open")]
    assert "- **t1** fix it ## 5. Injected - \\[x\\](javascript:1)" in text
    assert "# two" in MD.render(text) and "&gt; three" in MD.render(text)


def test_controls_are_placeholders_and_secrets_still_redacted():
    session = Session(title="t\x1b]0;x\x07", launch=[
        LaunchProfile(id="l1", name="w", status="working", env={"HF_TOKEN": "hf_abc"},
                      command="python -m sglang --api-key sk-1234 \x9b2J\u202e"),
    ])
    text = render_handoff(session)
    assert "<h1>t␛]0;x␇</h1>" in MD.render(text) and "\\x9b2J<U+202E>" in text
    assert "hf_abc" not in text and "sk-1234" not in text and text.count(MASK) == 2
