"""Tool arguments derived from the session's own pydantic models, so a tool's JSON schema
(types, enums, bounds, patterns) is the model's and cannot drift from it. Ids and stamps
are the editor's to set, so they are left out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

from pydantic import BaseModel, ConfigDict, create_model

from cockpit.model.session import Benchmark, FileChange, LaunchProfile, Package


def input_model(model: type[BaseModel], exclude: set[str], doc: str) -> type[BaseModel]:
    fields: dict[str, Any] = {
        name: (info.annotation, info) for name, info in model.model_fields.items() if name not in exclude
    }
    made: type[BaseModel] = create_model(
        f"{model.__name__}Fields", __config__=ConfigDict(extra="forbid"), __doc__=doc, **fields
    )
    return made


if TYPE_CHECKING:  # made at import time; to the type checker they are plain models
    BenchmarkFields: TypeAlias = BaseModel
    LaunchProfileFields: TypeAlias = BaseModel
    FileChangeFields: TypeAlias = BaseModel
    PackageFields: TypeAlias = BaseModel
else:
    BenchmarkFields = input_model(Benchmark, {"id"}, "A benchmark run: label and the figures it measured.")
    LaunchProfileFields = input_model(LaunchProfile, {"id"}, "A launch command (env values are redacted on read).")
    FileChangeFields = input_model(FileChange, {"id"}, "A file patched during the campaign.")
    PackageFields = input_model(Package, {"id", "captured"}, "A package version that matters.")


def fields_of(value: BaseModel) -> dict[str, Any]:
    """Only what the caller gave: the model's defaults stay the editor's."""
    return value.model_dump(exclude_unset=True)
