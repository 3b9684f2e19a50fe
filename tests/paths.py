"""Where the tests find the repo's files and the shared corpus (beside the clone in CI)."""

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
EXAMPLE_SESSION = REPO / "sessions" / "glm5-nvfp4.toml"
DATA = REPO / "tests" / "data"
CORPUS = REPO.parent / "shared" / "corpus"
