"""A task line's height, where it takes the short way (it fits), equals Textual's own wrap."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.content import Content

from cockpit.model.session import Task
from cockpit.ui.widgets.session.task_board import task_prompt

WORDS = ["t12", "Try", "EP=8", "with", "DeepEP", "low-latency", "kernels", "→", "d3", "GPU-util",
         "a" * 40, "漢字テキスト", "--moe-runner-backend", "flashinfer_trtllm", "", " "]


def _both(title: str, links: list[str], width: int, rules: dict) -> tuple[int, int]:
    prompt = task_prompt(Task(id="t1", title=title or "x"), links)
    reference = Content(prompt.plain, list(prompt.spans))  # Textual's own get_height
    return prompt.get_height(rules, width), reference.get_height(rules, width)


@settings(max_examples=400, deadline=None)
@given(words=st.lists(st.sampled_from(WORDS), min_size=1, max_size=14),
       links=st.lists(st.sampled_from(["d1", "d12", "d3"]), max_size=3),
       width=st.integers(min_value=1, max_value=60),
       pad=st.integers(min_value=0, max_value=2),
       overflow=st.sampled_from(["fold", "ellipsis", "clip"]))
def test_the_short_count_matches_textuals_wrap(words, links, width, pad, overflow):
    width += 2 * pad  # no room at all is not a layout Textual can wrap into
    rules = {"line_pad": pad, "text_overflow": overflow}
    ours, textual = _both(" ".join(words), links, width, rules)
    assert ours == textual


def test_newlines_tabs_and_nowrap_take_the_long_way():
    rng = random.Random(7)
    for title in ("two\nlines", "a\ttab here and there", "plain title " * 5):
        for rules in ({}, {"text_wrap": "nowrap"}, {"text_wrap": "nowrap", "text_overflow": "ellipsis"}):
            width = rng.randint(5, 30)
            ours, textual = _both(title, [], width, rules)
            assert ours == textual
