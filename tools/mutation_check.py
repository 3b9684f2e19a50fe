"""A small mutation check (issue 38, item 6): plant each known bug, run the tests that guard
it, restore the file, and print a table planted / caught.

    python tools/mutation_check.py            # every mutant
    python tools/mutation_check.py merge- ranks-   # the mutants whose name starts so

A mutant is one exact text replaced once in one file; the file is restored byte for byte
whatever happens (a test run killed, ^C). Tests run in a child pytest that neither reads nor
writes the tree's bytecode (a fresh PYTHONPYCACHEPREFIX), so a planted edit is never hidden
behind a cached .pyc of the same size and second, and none is left behind. Exit status 1
when any mutant survives or the unplanted tree fails its tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

MERGE = "cockpit/model/edit/merge.py"
STUDY = "cockpit/control/search/study.py"
SCORING = "cockpit/model/search/scoring.py"
RANKS = "cockpit/parse/metrics/sglang_metrics.py"
GPU_RULES = "cockpit/live/diagnosis/rules_gpu.py"
LIMITS = "cockpit/store/limits.py"
TRANSACTION = "cockpit/control/transaction.py"
RANK_RULES = "cockpit/live/diagnosis/rules_ranks.py"
TIMELINE = "cockpit/model/timeline.py"
HANDOFF_SEARCH = "cockpit/store/handoff/search.py"

MERGE_TESTS = ("tests/unit/model/test_merge_removals.py", "tests/unit/model/test_merge_dangling.py",
               "tests/unit/model/test_session_merge.py")
STUDY_TESTS = ("tests/unit/control/test_search_crash_infeasible.py",)
RANK_TESTS = ("tests/unit/parse/test_rank_dedup.py", "tests/unit/parse/test_prom_metrics.py")
GPU_TESTS = ("tests/unit/live/test_diagnosis_thresholds.py",)
LIMIT_TESTS = ("tests/unit/store/test_limit_edges.py",)
TRANSACTION_TESTS = ("tests/unit/control/test_transaction_edges.py",)
TIMELINE_TESTS = ("tests/unit/model/test_timeline.py",)
SEARCH_CORE_TESTS = ("tests/unit/control/test_search_core.py",)


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]
    what: str


MUTANTS = (
    # ---- the merge by record id (model/edit/merge.py): removed here / kept there, both orders
    Mutant("merge-link-comes-back", MERGE,
           "removed = {x for x in base if x not in ours or x not in theirs}",
           "removed = {x for x in base if x not in ours and x not in theirs}", MERGE_TESTS,
           "a link (or tag) removed on one side of a merge comes back"),
    Mutant("merge-deleted-there-comes-back", MERGE,
           "            result.taken += 1  # deleted there",
           "            out.append(mine)  # deleted there", MERGE_TESTS,
           "a record the file's writer deleted comes back"),
    Mutant("merge-deleted-here-comes-back", MERGE,
           "elif not _same_content(item, old):  # deleted here, changed there",
           "elif item is not None:  # deleted here, changed there", MERGE_TESTS,
           "a record this writer deleted comes back from the file"),
    Mutant("merge-order-is-content", MERGE,
           'LAYOUT_FIELDS = frozenset({"order", "updated", "captured"})',
           'LAYOUT_FIELDS = frozenset({"updated", "captured"})', MERGE_TESTS,
           "a column renumbered on the other side keeps a deleted record"),
    Mutant("merge-journal-removed-here-comes-back", MERGE,
           "out = [e for e in theirs if _journal_key(e) in ours_keys or _journal_key(e) not in base_keys]",
           "out = list(theirs)", MERGE_TESTS,
           "a journal event this writer removed (an undo) comes back"),
    Mutant("merge-journal-removed-there-comes-back", MERGE,
           "out += [e for e in ours if _journal_key(e) not in theirs_keys and _journal_key(e) not in base_keys]",
           "out += [e for e in ours if _journal_key(e) not in theirs_keys]", MERGE_TESTS,
           "a journal event the file's writer removed comes back"),
    Mutant("merge-history-removed-comes-back", MERGE,
           "kept = [a for a in ours if a in theirs or a not in base]",
           "kept = list(ours)", MERGE_TESTS,
           "an earlier last action removed on the other side comes back"),
    Mutant("merge-deleted-and-changed-is-lost", MERGE,
           "elif not _same_content(mine, old):  # changed here, deleted there: keep ours",
           "elif False:  # changed here, deleted there: keep ours", MERGE_TESTS,
           "a record changed here and deleted there is lost"),
    Mutant("merge-host-dropped", MERGE,
           "if item.host is not None and item.host not in names and item.host in known:",
           "if False:", MERGE_TESTS, "a host deleted on one side dropped though the other side's profile runs on it"),
    Mutant("merge-dangling-profile-kept", MERGE,
           'if bench.profile is not None and bench.profile not in ids["launch"]:',
           "if False:", MERGE_TESTS, "a run keeps its link to a profile the other side deleted"),
    # ---- the search's study: a crash is infeasible to Optuna
    Mutant("study-crash-feasible", STUDY,
           "return [CRASH_CONSTRAINT] * (1 + len(search.constraints))",
           "return [-1.0] * (1 + len(search.constraints))", STUDY_TESTS,
           "a crashed trial told to Optuna as feasible"),
    Mutant("study-crash-without-constraints", STUDY,
           "return optuna.trial.create_trial(value=worst, params=params, distributions=dists, system_attrs=attrs)",
           "return optuna.trial.create_trial(value=worst, params=params, distributions=dists)", STUDY_TESTS,
           "a crashed trial told to Optuna as a plain complete one"),
    Mutant("study-missing-target-met", STUDY,
           "values = list(trial.constraints) + [CRASH_CONSTRAINT] * (",
           "values = list(trial.constraints) + [-1.0] * (", STUDY_TESTS,
           "a target with no figure told to Optuna as met"),
    Mutant("scoring-crash-constraint-zero", SCORING,
           "CRASH_CONSTRAINT = 1.0", "CRASH_CONSTRAINT = 0.0", STUDY_TESTS,
           "the crash constraint moved to 0 (met, to Optuna)"),
    # ---- rank de-duplication of a /metrics page
    Mutant("ranks-replicas-summed", RANKS,
           "drop = set(REPLICA_LABELS) | per_process_labels(rows)",
           "drop = set(per_process_labels(rows))", RANK_TESTS,
           "the TP / PP / EP replicas of a DP group added up"),
    Mutant("ranks-highest-kept", RANKS,
           "if key not in out or rank < out[key][0]:",
           "if key not in out or rank > out[key][0]:", RANK_TESTS,
           "the highest replica rank kept instead of the lowest"),
    Mutant("ranks-ep-not-a-replica", RANKS,
           'REPLICA_LABELS = ("tp_rank", "pp_rank", "moe_ep_rank")',
           'REPLICA_LABELS = ("tp_rank", "pp_rank")', RANK_TESTS,
           "the EP ranks of a group counted as separate schedulers"),
    Mutant("ranks-host-splits-group", RANKS,
           "if fixed_by_rank and len({next(iter(v)) for v in by_rank.values()}) > 1:",
           "if fixed_by_rank and len({next(iter(v)) for v in by_rank.values()}) > 2:", RANK_TESTS,
           "a per-rank host label splits a TP group across nodes"),
    Mutant("ranks-pid-splits-group", RANKS,
           'out = {"pid"} & names', "out = set[str]()", RANK_TESTS,
           "a dead pid's row beside the live one counted twice"),
    # ---- power_starved thresholds (live/diagnosis/rules_gpu.py)
    Mutant("starved-share-down", GPU_RULES,
           "STARVED_SHARE = 0.65", "STARVED_SHARE = 0.60", GPU_TESTS, "the power-starved bound moved to 60 %"),
    Mutant("starved-share-up", GPU_RULES,
           "STARVED_SHARE = 0.65", "STARVED_SHARE = 0.70", GPU_TESTS, "the power-starved bound moved to 70 %"),
    Mutant("starved-share-nudged", GPU_RULES,
           "STARVED_SHARE = 0.65", "STARVED_SHARE = 0.66", GPU_TESTS, "the power-starved bound moved by one point"),
    Mutant("starved-gpu-compare-flipped", GPU_RULES,
           "s.power_share < STARVED_SHARE", "s.power_share <= STARVED_SHARE", GPU_TESTS,
           "a GPU at exactly 65 % counted as starved"),
    Mutant("starved-run-compare-flipped", GPU_RULES,
           "if share >= STARVED_SHARE}", "if share > STARVED_SHARE}", GPU_TESTS,
           "a loaded run at exactly 65 % counted as starved"),
    Mutant("starved-util-compare-flipped", GPU_RULES,
           "(s.util_pct or 0) < STARVED_UTIL", "(s.util_pct or 0) <= STARVED_UTIL", GPU_TESTS,
           "a GPU at exactly 90 % utilisation counted as starved"),
    Mutant("loaded-min-moved", GPU_RULES,
           "LOADED_MIN = 16", "LOADED_MIN = 17", GPU_TESTS, "a run at 16 concurrent requests not counted as load"),
    Mutant("throttle-share-compare-flipped", GPU_RULES,
           "if r in THROTTLE_REASONS and v >= THROTTLE_SHARE}", "if r in THROTTLE_REASONS and v > THROTTLE_SHARE}",
           GPU_TESTS, "a throttle reason in exactly 30 % of samples ignored"),
    Mutant("throttle-hot-compare-flipped", GPU_RULES,
           "s.temp_c >= HOT_C", "s.temp_c > HOT_C", GPU_TESTS, "a GPU at exactly 85 C not hot"),
    Mutant("throttle-clock-share-moved", GPU_RULES,
           "CLOCK_SHARE = 0.9 ", "CLOCK_SHARE = 0.91 ", GPU_TESTS, "clocks at 90.4 % of max read as throttled"),
    Mutant("throttle-at-limit-moved", GPU_RULES,
           "AT_LIMIT = 0.97 ", "AT_LIMIT = 0.98 ", GPU_TESTS, "a GPU at 97.1 % of its limit not held by it"),
    # ---- per rank, never a mean over ranks; medians, never a best run (issues 35, 37)
    Mutant("spec-log-ranks-pooled", RANK_RULES,
           'out.setdefault("" if e.ranks.dp is None else str(e.ranks.dp), []).append((n, e))',
           'out.setdefault("", []).append((n, e))', GPU_TESTS,
           "the log's accept lengths of every DP rank averaged together"),
    Mutant("spec-metrics-ranks-averaged", RANK_RULES,
           'per = s.gauges_by_dp.get(name) or ({"": s.gauges[name]} if name in s.gauges else {})',
           'per = {"": s.gauges[name]} if name in s.gauges else {}', GPU_TESTS,
           "/metrics' acceptance read as the mean over DP ranks"),
    Mutant("drops-best-run", TIMELINE,
           "medians = [(statistics.median(v for _, v in rows), rows) for rows in by_profile.values()]",
           "medians = [(max(v for _, v in rows), rows) for rows in by_profile.values()]", TIMELINE_TESTS,
           "a drop measured from the profile's luckiest earlier run"),
    Mutant("flat-repeats-as-concurrencies", GPU_RULES,
           "(c_lo, lo), (c_hi, hi) = sorted(points.items())[-2:]",
           "(c_lo, lo), (c_hi, hi) = [(b.concurrency or 0, [b]) for b in sorted(runs, key=lambda b: b.concurrency or 0)[-2:]]",
           GPU_TESTS, "two repeats of the top concurrency read as a doubling"),
    Mutant("power-point-best-repeat", GPU_RULES,
           "mid = median(share for _, (share, _) in rows)", "mid = max(share for _, (share, _) in rows)", GPU_TESTS,
           "a loaded point's power read from its best-fed repeat"),
    Mutant("handoff-search-first-launch", HANDOFF_SEARCH,
           "holds = group.feasible if group is not None else all(c <= 0 for c in t.constraints)",
           "holds = all(c <= 0 for c in t.constraints)", SEARCH_CORE_TESTS,
           "the handoff says a configuration's constraints on its first launch"),
    # ---- the store's bounds (store/limits.py) and the transaction's retries
    Mutant("limits-nesting-off-by-one", LIMITS,
           "if depth > max_nesting:", "if depth >= max_nesting:", LIMIT_TESTS,
           "64 levels of nesting refused"),
    Mutant("limits-number-off-by-one", LIMITS,
           '_SKIP % (MAX_NUMBER_CHARS - 1, "")', '_SKIP % (MAX_NUMBER_CHARS, "")', LIMIT_TESTS,
           "a number of 1,001 digits read"),
    Mutant("limits-size-off-by-one", LIMITS,
           "if size <= limit:", "if size < limit:", LIMIT_TESTS,
           "a file of exactly the size limit refused"),
    Mutant("limits-problems-off-by-one", LIMITS,
           "if len(problems) <= most:", "if len(problems) < most:", LIMIT_TESTS,
           "fifty problems listed as 49 and a count"),
    Mutant("transaction-hand-edit-ignored", TRANSACTION,
           "if disk_signature(path) != sig:", "if False:", TRANSACTION_TESTS,
           "a hand edit inside a transaction written over"),
    Mutant("transaction-attempts-moved", TRANSACTION,
           "_ATTEMPTS = 3", "_ATTEMPTS = 2", TRANSACTION_TESTS,
           "the transaction gives up after two reads"),
)


def run_tests(tests: tuple[str, ...], timeout: float) -> tuple[int, float]:
    """pytest's exit status over TESTS (124 past the timeout) and the seconds it took."""
    with tempfile.TemporaryDirectory(prefix="mutation-pyc-") as pyc:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPYCACHEPREFIX": pyc}
        start = time.monotonic()
        try:
            done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", "-n", "0",
                                   *tests], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
            code = done.returncode
        except subprocess.TimeoutExpired:
            code = 124
        return code, time.monotonic() - start


def check(mutant: Mutant) -> None:
    """Exit, naming the mutant, unless its text is in its file exactly once."""
    found = (ROOT / mutant.path).read_text(encoding="utf-8").count(mutant.old)
    if found != 1:
        raise SystemExit(f"{mutant.path}: the text of mutant {mutant.name} is found {found} times, not once; "
                         "the code moved, update the mutant")


def plant(mutant: Mutant, timeout: float) -> tuple[bool, int, float]:
    """(caught, pytest's status, seconds) with MUTANT planted; the file restored after."""
    path = ROOT / mutant.path
    original = path.read_bytes()
    text = original.decode("utf-8")
    check(mutant)
    try:
        path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
        code, seconds = run_tests(mutant.tests, timeout)
    finally:
        path.write_bytes(original)
    # 1: a test failed; 2..4 (a collection or usage error) would be a broken mutant, not a catch
    return code == 1, code, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("prefix", nargs="*", help="only the mutants whose name starts with one of these")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per test run (default 300)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.prefix or m.name.startswith(tuple(args.prefix))]
    if not chosen:
        parser.error(f"no mutant starts with {' or '.join(args.prefix)}")
    for mutant in chosen:
        check(mutant)
    suites = sorted({t for m in chosen for t in m.tests})
    code, seconds = run_tests(tuple(suites), args.timeout)
    if code != 0:
        print(f"the unplanted tree fails its tests (pytest status {code}): {' '.join(suites)}")
        return 1
    print(f"unplanted: {len(suites)} test files pass ({seconds:.0f} s)\n")
    print("| mutant | file | planted bug | caught | pytest status | s |")
    print("|---|---|---|---|---|---|")
    survived = 0
    for mutant in chosen:
        caught, status, took = plant(mutant, args.timeout)
        survived += not caught
        print(f"| {mutant.name} | {mutant.path} | {mutant.what} | {'yes' if caught else 'NO'} | {status} | "
              f"{took:.0f} |", flush=True)
    print(f"\n{len(chosen) - survived} of {len(chosen)} planted bugs caught")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main())
