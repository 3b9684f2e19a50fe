"""The generated reference pages match the code they are generated from: docs/cli.md (every
command's usage and arguments, from the argument parser) and docs/keys.md (every key, from the
action registry). A new option or key fails here until `python tools/gen_docs.py` is run."""

from __future__ import annotations

import argparse
import importlib.util
import re
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _gen_docs() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", ROOT / "tools" / "gen_docs.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_generated_pages_are_up_to_date():
    gen = _gen_docs()
    stale = [str(path.relative_to(ROOT)) for path, text in gen.pages().items()
             if not path.exists() or path.read_text(encoding="utf-8") != text]
    assert not stale, f"{', '.join(stale)} out of date: run `python tools/gen_docs.py`"


def test_cli_reference_has_every_command_and_option():
    """What the page holds, read back against the parser itself: every command and
    subcommand has a section, and every option string of each appears in its section."""
    from cockpit.cli import COMMANDS, build_parser

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    sections = dict(re.findall(r"^## `(cockpit[^`]*)`\n(.*?)(?=^## |\Z)", text, flags=re.M | re.S))
    assert set(COMMANDS) <= {title.split()[1] for title in sections if " " in title}
    top = build_parser()
    sub = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        body = sections[f"cockpit {name}"]
        for action in parser._actions:
            if action.help == argparse.SUPPRESS:
                continue  # hidden on purpose (a test hook), as in `-h`
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert f"`{option}" in body or f", {option}" in body, f"cockpit {name} {option} not in docs/cli.md"
    assert sections["cockpit bench import"].count("--label") == 2  # the usage and the table


def test_keys_page_lists_every_action_id():
    from cockpit.ui.keys.actions import ACTIONS

    text = (ROOT / "docs" / "keys.md").read_text(encoding="utf-8")
    missing = [spec.id for spec in ACTIONS if f"`{spec.id}`" not in text]
    assert not missing, f"docs/keys.md lacks {missing}: run `python tools/gen_docs.py`"


def test_check_mode_says_which_command_to_run(tmp_path, monkeypatch, capsys):
    """`--check` on a stale page exits 1 and names the command that fixes it."""
    gen = _gen_docs()
    stale = tmp_path / "cli.md"
    stale.write_text("# an old reference\n", encoding="utf-8")
    monkeypatch.setattr(gen, "pages", lambda: {stale: "# the new reference\n"})
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert "cli.md is out of date: run `python tools/gen_docs.py`" in capsys.readouterr().err
    assert stale.read_text(encoding="utf-8") == "# an old reference\n", "--check writes nothing"
    assert gen.main([]) == 0 and stale.read_text(encoding="utf-8") == "# the new reference\n"
