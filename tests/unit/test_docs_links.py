"""The README is a front door and the docs hold together: every relative link and anchor in
README.md, docs/*.md and benchmarks/README.md resolves (the file exists; `#anchor` matches a
heading by GitHub's slug rules), every docs page links back to the README, the README stays
at most 250 lines, and its test command is the one CI runs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from readme_quickstart import ROOT, quick_start

PAGES = sorted([ROOT / "README.md", ROOT / "benchmarks" / "README.md", *(ROOT / "docs").glob("*.md")])
LINK = re.compile(r"(?<!!)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code spans (links there are not links),
    line for line, so a line number still points into the file."""
    kept, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            kept.append("")
        else:
            kept.append("" if fenced else re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))
    return "\n".join(kept)


def slug(heading: str) -> str:
    """GitHub's heading anchor: the heading's text (code spans and links read as their text),
    lower case, every character but letters, digits, spaces, '-' and '_' dropped, spaces
    turned into '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)
    text = text.replace("`", "").strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of a Markdown file; a repeated heading gets -1, -2, ... as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        match = None if fenced else re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            found.add(base if count == 0 else f"{base}-{count}")
            seen[base] = count + 1
    return found


def links(page: Path) -> list[tuple[int, str]]:
    out = []
    for number, line in enumerate(prose(page.read_text(encoding="utf-8")).splitlines(), 1):
        out += [(number, m.group("target")) for m in LINK.finditer(line)]
    return out


def test_the_pages_exist():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    for page in ("docs/guide.md", "docs/hosts.md", "docs/session-file.md", "docs/cli.md", "docs/keys.md",
                 "docs/experiments.md", "docs/search.md", "docs/diagnosis.md", "docs/mcp.md",
                 "docs/architecture.md", "docs/sandbox.md", "docs/testing.md", "docs/headless.md"):
        assert page in names, f"{page} is missing"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path):
    broken = []
    for number, target in links(page):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # https:, mailto: -- not ours to check
            continue
        path_part, _, anchor = target.partition("#")
        dest = (page.parent / path_part).resolve() if path_part else page
        where = f"{page.relative_to(ROOT)}:{number}: ({target})"
        if not dest.exists():
            broken.append(f"{where} no such file")
        elif anchor:
            if dest.is_dir() or dest.suffix != ".md":
                broken.append(f"{where} an anchor into something that is not a Markdown file")
            elif anchor not in anchors(dest):
                broken.append(f"{where} no heading '#{anchor}' in {dest.relative_to(ROOT)}")
    assert not broken, "\n".join(broken)
    assert links(page), f"{page.relative_to(ROOT)} links nowhere"


@pytest.mark.parametrize("page", [p for p in PAGES if p.relative_to(ROOT).parts[0] in ("docs", "benchmarks")],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_doc_page_stands_alone(page: Path):
    """A title first, and a way back to the README."""
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# "), f"{page.relative_to(ROOT)} does not open with its title"
    back = {(page.parent / target).resolve() for _, target in links(page)}
    assert (ROOT / "README.md").resolve() in back, f"{page.relative_to(ROOT)} has no link back to the README"


def test_the_docs_index_lists_every_page():
    index = (ROOT / "docs" / "README.md")
    listed = {(index.parent / t.partition("#")[0]).resolve() for _, t in links(index)}
    unlisted = [p.name for p in (ROOT / "docs").glob("*.md") if p.name != "README.md" and p.resolve() not in listed]
    assert not unlisted, f"docs/README.md does not list {unlisted}"


def test_the_readme_is_a_front_door():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= 250, f"README.md has {len(lines)} lines (at most 250: move the rest into docs/)"
    for heading in ("## Install and try it", "## First run", "## Features"):
        assert heading in lines, f"README.md lacks {heading!r}"
    assert "docs/sandbox.md" in text


def test_anchor_rules_match_github():
    """The slug rules the link test relies on, on headings these pages use."""
    assert slug("Day one: a new campaign set up from inside cockpit") == \
        "day-one-a-new-campaign-set-up-from-inside-cockpit"
    assert slug("Search: `cockpit tune`") == "search-cockpit-tune"
    assert slug("The server's own metrics and DCGM") == "the-servers-own-metrics-and-dcgm"
    assert slug("`cockpit bench import`") == "cockpit-bench-import"
    assert slug("Several writers, one file") == "several-writers-one-file"


def test_the_readme_test_command_is_what_ci_runs():
    install, tests = quick_start()
    assert install == "bash .ci/bootstrap && . .venv/bin/activate && cockpit --demo"
    assert tests == "bash .ci/run"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "bash .ci/bootstrap --test" in ci, ".ci/run installs through the README's bootstrap"
    pytest_line = ci.strip().splitlines()[-1]
    assert pytest_line.startswith("exec .venv/bin/python -m pytest"), ".ci/run ends by running the tests"
    # docs/testing.md quotes the test command: it must be the one .ci/run runs
    testing = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    assert pytest_line.removeprefix("exec ") in testing, \
        f"docs/testing.md does not quote .ci/run's test command {pytest_line.removeprefix('exec ')!r}"
    for check in (".venv/bin/ruff check cockpit tests benchmarks", ".venv/bin/lint-imports", ".venv/bin/python -m mypy"):
        assert check in ci and check.removeprefix(".venv/bin/").removeprefix("python -m ") in testing, check
