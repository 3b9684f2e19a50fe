"""Where the tests find the repo's files and the corpus (tests/data/corpus: every file a test reads is in the repo)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SESSION = REPO / "sessions" / "glm5-nvfp4.toml"
DATA = REPO / "tests" / "data"
CORPUS = DATA / "corpus"
