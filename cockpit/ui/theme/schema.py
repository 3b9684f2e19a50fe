"""The schema of a theme file (pydantic), for files a user wrote: every error is named.

Imported only when such a file is read (cockpit.ui.theme.themes); the shipped themes are checked
against it by the tests.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator
from textual.color import Color, ColorParseError
from textual.theme import Theme

from cockpit.ui.theme.roles import ROLES

_COLOUR_FIELDS = ("primary", "secondary", "warning", "error", "success", "accent",
                  "foreground", "background", "surface", "panel", "boost")


def _check_colour(value: str) -> str:
    try:
        Color.parse(value)
    except ColorParseError as exc:
        raise ValueError(f"{value!r} is not a colour") from exc
    return value


class ThemeFile(BaseModel):
    """One theme file. Colours accept #RRGGBB, rgb(...), names and ansi_*."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    dark: bool = True
    primary: str
    secondary: str | None = None
    warning: str | None = None
    error: str | None = None
    success: str | None = None
    accent: str | None = None
    foreground: str | None = None
    background: str | None = None
    surface: str | None = None
    panel: str | None = None
    boost: str | None = None
    luminosity_spread: float = 0.15
    text_alpha: float = 0.95
    variables: dict[str, str] = {}

    @field_validator(*_COLOUR_FIELDS)
    @classmethod
    def _colour(cls, value: str | None) -> str | None:
        return None if value is None else _check_colour(value)

    @field_validator("variables")
    @classmethod
    def _roles_are_colours(cls, value: dict[str, str]) -> dict[str, str]:
        # Only cockpit's roles are checked: other Textual variables may be non-colours.
        for key, item in value.items():
            if key in ROLES:
                try:
                    _check_colour(item)
                except ValueError as exc:
                    raise ValueError(f"variables.{key}: {exc}") from None
        return value

    def to_theme(self) -> Theme:
        fields = self.model_dump(exclude={"variables"})
        return Theme(**fields, variables=dict(self.variables))


