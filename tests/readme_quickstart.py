"""The README's install block, read as a newcomer types it: shared by the test that checks it is
what CI runs (tests/unit/test_docs_links.py) and the one that runs it in a scratch clone
(tests/e2e/test_readme_quickstart_tmux.py)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def quick_start() -> list[str]:
    """The commands of README.md's "Install and try it" ```bash block, comments cut."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "## Install and try it" in text, "README.md lacks its '## Install and try it' section"
    section = text.split("## Install and try it", 1)[1]
    block = re.search(r"```bash\n(.*?)```", section, flags=re.S)
    assert block, "README.md's 'Install and try it' has no ```bash block"
    return [line.split("  #", 1)[0].strip() for line in block.group(1).splitlines() if line.strip()]
