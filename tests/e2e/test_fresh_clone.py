"""A fresh clone stands alone: every file a test reads is inside the repository.

The clone is of the committed HEAD (uncommitted changes are not in it), made in an empty 0700
folder with nothing beside it and HOME set to another empty folder, as a newcomer has it.
The whole suite is collected there and must be the same tests as here, with no collection
error. A static check says which test or benchmark file names a path above the repo root.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from paths import REPO

pytestmark = pytest.mark.timeout(900)

SCANNED = ("tests", "benchmarks", "tools", ".ci")
# a chain of `.parent` / `.parents[N]` after `Path(__file__)` (with or without `.resolve()`) or a name
_CHAIN = r"((?:\.parent\b|\.parents\[\d+\])+)"
_FILE_CHAIN = re.compile(r"Path\(__file__\)(?:\.resolve\(\))?" + _CHAIN)
# a name bound to a folder of the checkout itself (nothing joined after the chain)
_ASSIGN = re.compile(r"^\s*(\w+)\s*=\s*Path\(__file__\)(?:\.resolve\(\))?" + _CHAIN + r"\s*(?:#.*)?$", re.M)
# names outside the repository that a test once read from (the corpus lived beside the clone)
_OUTSIDE = re.compile(r"\.\./shared|/work/shared|\"shared\"\s*/\s*\"corpus\"|['\"]\.\./\.\./")


def _levels(chain: str) -> int:
    """How many folders up a `.parent`/`.parents[N]` chain goes from the file itself."""
    return sum(int(n) + 1 if n else 1 for n in re.findall(r"\.parents?(?:\[(\d+)\])?", chain))


def _above_root(rel: Path, text: str) -> list[str]:
    """`file:line: text` of each place in one file (at `rel` in the repo) naming a path above the root."""
    depth = len(rel.parts)  # going up `depth` levels from the file reaches the repo root
    names = {m[1]: _levels(m[2]) for m in _ASSIGN.finditer(text)}
    uses = {name: re.compile(rf"\b{re.escape(name)}" + _CHAIN) for name in names}
    bad = []
    for no, line in enumerate(text.splitlines(), 1):
        ups = [_levels(m[1]) for m in _FILE_CHAIN.finditer(line)]
        if not _ASSIGN.match(line):
            ups += [names[name] + _levels(m[1]) for name, use in uses.items() for m in use.finditer(line)]
        if any(up > depth for up in ups) or _OUTSIDE.search(line):
            bad.append(f"{rel}:{no}: {line.strip()}")
    return bad


def test_no_test_or_benchmark_reads_above_the_repo_root():
    files = [p for top in SCANNED for p in sorted((REPO / top).rglob("*")) if p.is_file()
             and (p.suffix in (".py", ".sh", ".toml", ".ini") or p.parent.name == ".ci")
             and "corpus" not in p.relative_to(REPO).parts]
    assert len(files) > 200, f"only {len(files)} files scanned under {SCANNED}"
    bad = [hit for p in files if p != Path(__file__).resolve()  # this file holds the patterns as data
           for hit in _above_root(p.relative_to(REPO), p.read_text(encoding="utf-8", errors="replace"))]
    assert bad == [], "reads outside the repository:\n" + "\n".join(bad)


def test_the_static_check_catches_what_it_is_for():
    probe = Path("tests/unit/probe.py")  # three levels below the root
    cases = {
        'CORPUS = Path(__file__).resolve().parents[3].parent / "x"\n': True,
        'REPO = Path(__file__).resolve().parents[2]\nC = REPO.parent / "shared" / "corpus"\n': True,
        'HERE = Path(__file__).parent\nX = HERE.parents[2]\n': True,
        'X = "../shared/corpus/a.log"\n': True,
        'REPO = Path(__file__).resolve().parents[2]\nC = REPO / "tests" / "data" / "corpus"\n': False,
        'HERE = Path(__file__).parent\nX = HERE.parents[1]\n': False,
        'OUT = Path(__file__).parents[2] / "benchmarks" / "out.txt"\nOUT.parent.mkdir()\n': False,
    }
    for text, outside in cases.items():
        assert bool(_above_root(probe, text)) is outside, text


def _clean_env(home: Path, pythonpath: Path) -> dict[str, str]:
    # the outer pytest (and xdist) leave PYTEST_* behind; the inner run is a fresh one
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH", "COV_"))}
    env.update(HOME=str(home), PYTHONPATH=str(pythonpath))
    for k in ("NO_COLOR", "TEXTUAL", "TEXTUAL_THEME"):
        env.pop(k, None)
    return env


def _git(*args: str, cwd: Path | None = None, env: dict[str, str]) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"git {' '.join(args)}: {done.stderr.strip()}"
    return done.stdout.strip()


@pytest.fixture
def fresh_clone() -> Iterator[tuple[Path, Path]]:
    """(clone, home): HEAD cloned alone in a new 0700 folder; HOME another empty folder."""
    if shutil.which("git") is None:
        pytest.fail("git is not installed: the fresh-clone check needs it")
    top = Path(tempfile.mkdtemp(prefix="cockpit-clone-"))
    home = Path(tempfile.mkdtemp(prefix="cockpit-home-"))
    try:
        top.chmod(0o700)
        assert stat.S_IMODE(top.stat().st_mode) == 0o700 and list(top.iterdir()) == []
        clone = top / "cockpit"
        # git keeps the person's own config (a safe.directory for a checkout owned by another
        # user lives in the real HOME); only what runs in the clone gets the empty HOME
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env["GIT_TERMINAL_PROMPT"] = "0"
        # HEAD by name: works from a branch, a worktree or CI's detached, shallow checkout
        _git("clone", "--quiet", "--no-checkout", "--depth", "1", f"file://{REPO}", str(clone), env=env)
        _git("fetch", "--quiet", "--depth", "1", "origin", "HEAD", cwd=clone, env=env)
        _git("checkout", "--quiet", "--detach", "FETCH_HEAD", cwd=clone, env=env)
        head = _git("rev-parse", "HEAD", cwd=REPO, env=env)
        assert _git("rev-parse", "HEAD", cwd=clone, env=env) == head
        assert sorted(p.name for p in top.iterdir()) == ["cockpit"]  # nothing beside the clone
        yield clone, home
    finally:
        shutil.rmtree(top, ignore_errors=True)
        shutil.rmtree(home, ignore_errors=True)


def _collect(root: Path, home: Path) -> tuple[list[str], str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"],
        cwd=root, env=_clean_env(home, root), capture_output=True, text=True, timeout=600,
    )
    out = done.stdout + done.stderr
    summary = [ln for ln in out.splitlines() if re.search(r"\d+ tests? collected|no tests collected", ln)]
    assert done.returncode == 0 and summary, f"collect in {root}: rc {done.returncode}\n{out[-4000:]}"
    assert "error" not in summary[-1], f"collect in {root}: {summary[-1]}\n{out[-4000:]}"
    return sorted(ln for ln in done.stdout.splitlines() if "::" in ln), summary[-1]


def test_a_fresh_clone_collects_the_whole_suite_and_reads_its_corpus(fresh_clone):
    clone, home = fresh_clone
    here, _ = _collect(REPO, home)
    there, summary = _collect(clone, home)
    assert len(there) > 1000, summary
    missing, extra = sorted(set(here) - set(there)), sorted(set(there) - set(here))
    assert (missing, extra) == ([], []), (
        f"the clone of HEAD collects {len(there)} tests, this tree {len(here)} (uncommitted tests?):\n"
        f"only here: {missing[:20]}\nonly in the clone: {extra[:20]}")
    # the corpus tests read their files from the clone itself, with nothing beside it
    corpus_tests = ["tests/unit/parse/test_sglang_corpus.py", "tests/unit/parse/test_nvsmi_topo_cases.py"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "0", *corpus_tests],
        cwd=clone, env=_clean_env(home, clone), capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert re.search(r"\b\d{2,} passed\b", done.stdout) and "skipped" not in done.stdout, done.stdout[-2000:]
