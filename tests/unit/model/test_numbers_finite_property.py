"""Every number a session file holds, whatever is written there (inf, -inf, nan, 1e308, -0.0,
a subnormal, a 30-digit integer): the file either loads with that number finite and within
the session's bound, and saves back to the same session, or is refused with `file:line:col:`
naming the field. Never a traceback. The fields are found by walking the model, and a test
keeps the walk covering every int and float field of every record."""

from __future__ import annotations

import math
import re
import types
import typing
from collections.abc import Iterator
from typing import Any

import annotated_types
import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from cockpit.model.enums import Metric
from cockpit.model.experiment_records import Benchmark, SweepDataset
from cockpit.model.search.search import Search, SearchTrial, Stepped
from cockpit.model.session import (
    Goal,
    Host,
    LaunchProfile,
    PrometheusSource,
    Session,
    Sweep,
    Target,
    Task,
    UiState,
)
from cockpit.model.strict import MAX_COUNT, MAX_FIGURE
from cockpit.store.errors import SessionFileError
from cockpit.store.toml_store import dumps_session, loads_session, to_data

Path = tuple[str | int, ...]


def _numeric(annotation: Any) -> bool:
    """Whether a field's type holds an int or a float somewhere (bool is neither here)."""
    if annotation in (int, float):
        return True
    if typing.get_origin(annotation) is typing.Annotated:
        return _numeric(typing.get_args(annotation)[0])
    return any(_numeric(a) for a in typing.get_args(annotation))


def _models(annotation: Any) -> Iterator[type[BaseModel]]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        yield annotation
    for inner in typing.get_args(annotation):
        yield from _models(inner)


def numeric_fields(model: type[BaseModel] = Session, seen: set[type] | None = None) -> set[tuple[str, str]]:
    """(model, field) of every int or float field reachable from the session."""
    seen = set() if seen is None else seen
    out: set[tuple[str, str]] = set()
    if model in seen:
        return out
    seen.add(model)
    for name, info in model.model_fields.items():
        if _numeric(info.annotation):
            out.add((model.__name__, name))
        for inner in _models(info.annotation):
            out |= numeric_fields(inner, seen)
    return out


def full_session() -> Session:
    """One record of every kind, every numeric field set (datasets each set their own)."""
    bench_numbers: dict[str, Any] = {name: 1 for name, info in Benchmark.model_fields.items()
                                     if _numeric(info.annotation)}
    bench_numbers["server_buckets"] = {"server_ttft_p99_ms": [10.0, 20.0]}  # a histogram bucket's bounds
    return Session(
        goal=Goal(targets=[Target(id="g1", metric=Metric.OUTPUT_TOK_S, value=100, concurrency_min=1,
                                  concurrency_max=8)]),
        tasks=[Task(id="t1", title="x", order=1)],
        hosts=[Host(name="box", metrics_interval_s=5.0)],
        launch=[LaunchProfile(id="l1", name="b", command="python -m sglang.launch_server --bs 4", host="box")],
        benchmarks=[Benchmark(id="b1", label="run", **bench_numbers)],
        sweeps=[
            Sweep(id="s1", name="s", prompts=10, request_rate=2.0, range_ratio=0.5, repeats=2),
            Sweep(id="s2", name="s", dataset=SweepDataset.SHAREGPT, sharegpt_context_len=4096),
            Sweep(id="s3", name="s", dataset=SweepDataset.GENERATED_SHARED_PREFIX, gsp_num_groups=2,
                  gsp_prompts_per_group=2, gsp_system_prompt_len=10, gsp_question_len=10, gsp_output_len=10),
            Sweep(id="s4", name="s", dataset=SweepDataset.MOONCAKE, dataset_path="/x", mooncake_slowdown_factor=1.0,
                  mooncake_num_rounds=2),
        ],
        prometheus=[PrometheusSource(name="p", url="http://p", rate_window_s=10)],
        ui=UiState(scroll={"tasks": 3}),
        searches=[Search(
            id="q1", name="q", profile="l1", sweep="s1", at_concurrency=8, seed=1, constraints=["g1"], hosts=["box"],
            ports={"box": 30000}, space={"--mem-fraction-static": Stepped(low=0.8, high=0.9, step=0.05),
                                         "--bs": [4, 8.5]},
            trial=[SearchTrial(number=0, params={"--bs": 4}, value=1.0, constraints=[0.1], power_mean_w=1.0,
                               output_tok_per_joule=1.0, ttft_p99_ms=1.0, ready_s=1.0),
                   SearchTrial(number=1, params={"--bs": 4}, repeat_of=0)]),
            Search(id="q2", name="two", profile="l1", sweep="s1", space={"--bs": [4, 8]},
                   objective=["output_tok_s", "output_tok_per_joule"], picked=0,
                   trial=[SearchTrial(number=0, params={"--bs": 4}, value=1.0, values=[1.0, 2.0])])],
    )


def _walk(value: Any, model: Any, path: Path) -> Iterator[tuple[Path, str, str]]:
    """(path into the session's data, model name, field) of every number the session holds."""
    if isinstance(value, BaseModel):
        for name in type(value).model_fields:
            inner = getattr(value, name)
            if inner is None:
                continue
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                yield (*path, name), type(value).__name__, name
            else:
                yield from _walk(inner, (type(value).__name__, name), (*path, name))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                yield (*path, index), *model
                return  # one element of a list of numbers stands for them all
            yield from _walk(inner, model, (*path, index))
    elif isinstance(value, dict):
        for key, inner in value.items():
            if isinstance(inner, int | float) and not isinstance(inner, bool):
                yield (*path, key), *model
            else:
                yield from _walk(inner, model, (*path, key))


PATHS = sorted(dict.fromkeys((path, f"{model}.{name}") for path, model, name in _walk(full_session(), None, ())),
               key=lambda p: p[1])
ODD = [math.inf, -math.inf, math.nan, 1e308, -1e308, -0.0, 0.0, 5e-324, -5e-324, 2.2250738585072014e-308,
       1e15, -1e15, 1e15 - 1, 0.5, 1e-300, 10**30, -(10**30), 2**53, 2**53 - 1, -1, 0, 1, 65536]
VALUES = st.one_of(st.sampled_from(ODD), st.floats(allow_nan=True, allow_infinity=True, allow_subnormal=True),
                   st.integers(min_value=-(10**30), max_value=10**30))
WHERE = re.compile(r"^s\.toml:\d+:\d+: ", re.M)


def test_the_walk_reaches_every_numeric_field_of_the_model():
    reached = {tuple(label.split(".", 1)) for _, label in PATHS}
    assert numeric_fields() - reached == set(), "a numeric field the property test does not try"


MODELS = {m.__name__: m for m in (Session, Goal, Target, Task, Host, LaunchProfile, Benchmark, Sweep,
                                   PrometheusSource, UiState, Search, SearchTrial, Stepped)}


def _within_own_bounds(label: str, value: float) -> bool:
    """The field's own ge/gt/le/lt hold too (the session-wide bound must not replace them)."""
    model, name = label.split(".", 1)
    checks = {annotated_types.Ge: lambda b: value >= b.ge, annotated_types.Gt: lambda b: value > b.gt,
              annotated_types.Le: lambda b: value <= b.le, annotated_types.Lt: lambda b: value < b.lt}
    return all(check(bound) for bound in MODELS[model].model_fields[name].metadata
               for kind, check in checks.items() if isinstance(bound, kind))


def _set(data: dict[str, Any], path: Path, value: Any) -> None:
    target: Any = data
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


def _get(session: Session, path: Path) -> Any:
    value: Any = session
    for part in path:
        value = value[part] if isinstance(part, int) or isinstance(value, dict) else getattr(value, part)
    return value


@pytest.mark.parametrize(("path", "label"), PATHS, ids=[label for _, label in PATHS])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=VALUES)
def test_any_number_loads_finite_or_is_refused_at_its_line(path, label, value):
    data = to_data(full_session())
    _set(data, path, value)
    text = tomli_w.dumps(data, multiline_strings=True)
    try:
        session = loads_session(text, "s.toml")
    except SessionFileError as exc:
        said = exc.render()
        assert WHERE.match(said), said
        names = [p for p in path if isinstance(p, str)][-2:]
        assert any(name in said for name in names), f"{label}: the error does not name the field: {said}"
        assert "Traceback" not in said
        return
    loaded = _get(session, path)
    assert isinstance(loaded, int | float) and math.isfinite(loaded), f"{label} loaded {loaded!r}"
    assert abs(loaded) < (MAX_COUNT if isinstance(loaded, int) else MAX_FIGURE)
    assert _within_own_bounds(label, loaded), f"{label} = {loaded!r} is outside the field's own bounds"
    again = loads_session(dumps_session(session), "s.toml")
    assert again == session, f"{label} = {value!r} does not round-trip"
    saved = _get(again, path)
    assert saved == loaded and math.copysign(1, saved) == math.copysign(1, loaded)  # -0.0 stays -0.0


def test_the_reported_values_are_refused_with_their_line():
    """The issue's cases, by hand: each at its line, with its field."""
    base = to_data(full_session())
    for path, value, words in [
        (("searches", 0, "space", "--mem-fraction-static", "high"), math.inf, "high = inf is not a finite number"),
        (("searches", 0, "space", "--mem-fraction-static", "low"), -math.inf, "low = -inf is not a finite number"),
        (("searches", 0, "space", "--mem-fraction-static", "step"), math.inf, "step = inf is not a finite number"),
        (("searches", 0, "space", "--mem-fraction-static", "step"), 5e-324, "at most 1000 per dimension"),
        (("searches", 0, "trial", 0, "value"), 1e308, "trial[0].value"),
        (("ui", "autosave_delay_s"), 1e-300, "0 saves at once"),
    ]:
        data = types.SimpleNamespace(value=to_data(full_session())).value
        _set(data, path, value)
        with pytest.raises(SessionFileError) as err:
            loads_session(tomli_w.dumps(data), "s.toml")
        assert WHERE.match(err.value.render()) and words in err.value.render(), err.value.render()
    assert base == to_data(full_session())
