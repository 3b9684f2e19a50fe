"""Crashes learned as regions: a crash is pinned on the smallest combination of its values
never seen in a launch that got ready, a pair when every single value has run, and no
configuration holding a pinned combination is launched again, to the end of the space."""

from __future__ import annotations

from cockpit.control.search.model_sampler import _crash_ok
from cockpit.control.search.plan import next_launch
from cockpit.control.search.study import SINGLE_WEIGHT, blamed, crash_hypotheses, crash_suspects, propose
from cockpit.model.search.search import Search, SearchTrial, TrialStatus
from cockpit.model.search.space import config_key

SPACE = {"--moe-runner-backend": ["cutlass", "trtllm", "triton"], "--cuda-graph-max-bs": [128, 256],
         "--chunked-prefill-size": [2048, 4096, 8192]}


def _search(trials: list[SearchTrial]) -> Search:
    return Search.model_validate({"id": "q1", "name": "n", "profile": "l1", "sweep": "s1", "space": SPACE,
                                  "trials": 18, "trial": [t.model_dump() for t in trials]})


def _ok(number: int, backend: str, bs: int, chunk: int, value: float = 1000.0) -> SearchTrial:
    return SearchTrial(number=number, params={"--moe-runner-backend": backend, "--cuda-graph-max-bs": bs,
                                              "--chunked-prefill-size": chunk}, status=TrialStatus.OK, value=value)


def _crash(number: int, backend: str, bs: int, chunk: int) -> SearchTrial:
    return SearchTrial(number=number, params={"--moe-runner-backend": backend, "--cuda-graph-max-bs": bs,
                                              "--chunked-prefill-size": chunk}, status=TrialStatus.CRASHED,
                       error="cuda_oom: torch.OutOfMemoryError: CUDA out of memory")


def _holds(params: dict, backend: str, bs: int) -> bool:
    return params["--moe-runner-backend"] == backend and params["--cuda-graph-max-bs"] == bs


def test_an_interaction_crash_is_pinned_on_its_pair_and_never_relaunched():
    # trtllm ran (with 128), 256 ran (with cutlass), 2048 ran with both: only the pair trtllm+256 never ran
    trials = [_ok(0, "trtllm", 128, 2048, 1300.0), _ok(1, "cutlass", 256, 2048), _crash(2, "trtllm", 256, 2048)]
    search = _search(trials)
    pair = (("--cuda-graph-max-bs", "256"), ("--moe-runner-backend", "trtllm"))
    assert blamed(search) == {pair}
    # the whole space, launch by launch: trtllm with 256 (the next chunk, 4096 or 8192) never comes again
    number = 3
    while (step := next_launch(search, 40, seed=number)) is not None:
        assert not _holds(step.params, "trtllm", 256), f"launch {number} relaunched the crashing pair: {step}"
        value = 1300.0 if step.params["--moe-runner-backend"] == "trtllm" else 1000.0
        trial = _ok(number, step.params["--moe-runner-backend"], step.params["--cuda-graph-max-bs"],
                    step.params["--chunked-prefill-size"], value)
        search = search.model_copy(update={"trial": [*search.trial, trial.model_copy(
            update={"repeat_of": step.repeat_of})]})
        number += 1
    firsts = [t for t in search.trial if t.repeat_of is None]
    assert len(firsts) == 18 - 2  # every configuration but the two left holding the pinned pair


def test_a_crash_with_several_untried_pairs_is_not_pinned_until_the_data_singles_one_out():
    trials = [_ok(0, "trtllm", 128, 2048), _ok(1, "cutlass", 256, 4096), _ok(5, "cutlass", 128, 8192),
              _crash(2, "trtllm", 256, 8192)]
    search = _search(trials)
    # every value ran somewhere; three pairs of the crash never did: suspects, none pinned yet
    assert crash_suspects(search) == [{
        (("--cuda-graph-max-bs", "256"), ("--moe-runner-backend", "trtllm")),
        (("--chunked-prefill-size", "8192"), ("--cuda-graph-max-bs", "256")),
        (("--chunked-prefill-size", "8192"), ("--moe-runner-backend", "trtllm"))}]
    assert blamed(search) == set()
    # two of them then run fine: the crash is pinned on the third
    search = _search([*trials, _ok(3, "cutlass", 256, 8192), _ok(4, "trtllm", 128, 8192)])
    assert blamed(search) == {(("--cuda-graph-max-bs", "256"), ("--moe-runner-backend", "trtllm"))}
    for seed in range(10):
        chosen = propose(search, seed=seed)
        assert chosen is not None and not _holds(chosen, "trtllm", 256)


def test_a_single_value_never_seen_working_is_pinned_alone():
    trials = [_ok(0, "cutlass", 128, 2048), _crash(1, "triton", 128, 2048)]
    assert blamed(_search(trials)) == {(("--moe-runner-backend", "triton"),)}


def test_the_crash_model_weighs_values_and_pairs_and_a_pinned_crash_explains_the_other():
    # the first crash: trtllm, 256 and 8192 never ran; suspects are each value and each pair
    trials = [_ok(0, "cutlass", 128, 2048), _crash(1, "trtllm", 256, 8192)]
    [first] = crash_hypotheses(_search(trials))
    assert first[(("--moe-runner-backend", "trtllm"),)] == SINGLE_WEIGHT
    assert first[(("--cuda-graph-max-bs", "256"), ("--moe-runner-backend", "trtllm"))] == 1.0
    assert len(first) == 3 + 3
    # trtllm with 256 is held by 1 single + 1 pair of weight 3 * 2 + 3 in all; trtllm with 128 by the single alone
    ok = _crash_ok([config_key(_search(trials), {"--moe-runner-backend": "trtllm", "--cuda-graph-max-bs": b,
                                                 "--chunked-prefill-size": 2048}) for b in (128, 256)], [first])
    total = 3 * SINGLE_WEIGHT + 3
    assert list(ok) == [1 - SINGLE_WEIGHT / total, 1 - (2 * SINGLE_WEIGHT + 1) / total]
    # then 8192 crashes alone with cutlass and 128, which both ran: 8192 is pinned, and it explains the
    # first crash too (it held 8192), so trtllm and 256 carry no doubt from it and trtllm is tried again
    trials = [*trials, _crash(2, "cutlass", 128, 8192)]
    assert blamed(_search(trials)) == {(("--chunked-prefill-size", "8192"),)}
    assert crash_hypotheses(_search(trials)) == []
    picks = [propose(_search(trials), seed=seed) for seed in range(12)]
    assert any(p is not None and p["--moe-runner-backend"] == "trtllm" for p in picks)
