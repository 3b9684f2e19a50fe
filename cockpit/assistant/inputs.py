"""Tool arguments derived from the session's own pydantic models, so a tool's JSON schema
(types, enums, bounds, patterns) is the model's and cannot drift from it. Ids and stamps
are the editor's to set, so they are left out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ConfigDict, create_model, model_validator

from cockpit.model.session import Benchmark, FileChange, LaunchProfile, Package, Sweep


def input_model(model: type[BaseModel], exclude: set[str], doc: str, *, dropped: frozenset[str] = frozenset()
                ) -> type[BaseModel]:
    """`dropped`: keys taken out of the schema and ignored when a client sends them anyway."""
    fields: dict[str, Any] = {
        name: (info.annotation, info) for name, info in model.model_fields.items()
        if name not in exclude and name not in dropped
    }
    validators: dict[str, Any] = {}
    if dropped:
        def drop(cls: object, data: object) -> object:
            return {k: v for k, v in data.items() if k not in dropped} if isinstance(data, dict) else data

        validators["drop_fields"] = model_validator(mode="before")(classmethod(drop))  # type: ignore[arg-type]
    made: type[BaseModel] = create_model(
        f"{model.__name__}Fields", __config__=ConfigDict(extra="forbid"), __doc__=doc,
        __validators__=validators or None, **fields
    )
    return made


if TYPE_CHECKING:  # made at import time; to the type checker they are plain models
    BenchmarkFields: TypeAlias = BaseModel
    LaunchProfileFields: TypeAlias = BaseModel
    FileChangeFields: TypeAlias = BaseModel
    PackageFields: TypeAlias = BaseModel
    SweepFields: TypeAlias = BaseModel
else:
    BenchmarkFields = input_model(Benchmark, {"id"}, "A benchmark run: label and the figures it measured.")
    # `confirmed` is a person's, given at a terminal (model/launch/confirm.py): an assistant's is ignored.
    LaunchProfileFields = input_model(LaunchProfile, {"id"}, "A launch command (env values are redacted on read).",
                                      dropped=frozenset({"confirmed"}))
    FileChangeFields = input_model(FileChange, {"id"}, "A file patched during the campaign.")
    PackageFields = input_model(Package, {"id", "captured"}, "A package version that matters.")
    # a sweep runs only once a person confirmed its bench command at a terminal, as a profile does
    SweepFields = input_model(Sweep, {"id"}, "A benchmark workload run at several concurrencies.",
                              dropped=frozenset({"confirmed"}))


def fields_of(value: BaseModel) -> dict[str, Any]:
    """Only what the caller gave: the model's defaults stay the editor's."""
    return value.model_dump(exclude_unset=True)
