"""Theme files -> Textual themes with cockpit's named colour roles.

Every `$XDG_CONFIG_HOME/cockpit/themes/*.toml` is validated by `ThemeFile` (schema.py,
pydantic) and turned into a `textual.theme.Theme`. A broken file is reported (file and
reason) and skipped; the app then falls back to the default theme. The `themes/*.toml`
shipped with cockpit are validated by the tests instead, and read without pydantic at run
time: `cockpit log` starts ~90 ms sooner for it.
Widgets name roles (`$task-doing`, `role_style(app, "log-error")`), never colours.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from rich.style import Style
from textual.color import Color, ColorParseError
from textual.theme import Theme

import cockpit
from cockpit.ui.theme.roles import ROLE_FALLBACK, ROLES

DEFAULT_THEME = "cockpit-dark"

@dataclass(frozen=True, slots=True)
class ThemeProblem:
    path: Path
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def shipped_theme_dir() -> Path:
    """`themes/` of a source checkout, else the copy packed into the wheel."""
    package = Path(cockpit.__file__).parent
    checkout = package.parent / "themes"
    return checkout if checkout.is_dir() else package / "_data" / "themes"


def user_theme_dir() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "cockpit" / "themes"


def load_theme_file(path: Path, *, trusted: bool = False) -> Theme:
    """Read and validate one file; raises ValueError with a readable reason. `trusted`
    (a shipped file, checked by the tests): built as it is, without the validator."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ValueError(str(exc)) from None
    if trusted:
        return Theme(**data)
    from pydantic import ValidationError

    from cockpit.ui.theme.schema import ThemeFile

    try:
        return ThemeFile.model_validate(data).to_theme()
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        message = first["msg"].removeprefix("Value error, ")
        raise ValueError(f"{where}: {message}" if where else message) from None


def load_themes(dirs: list[Path] | None = None) -> tuple[list[Theme], list[ThemeProblem]]:
    """Themes from every folder, later folders overriding earlier names."""
    themes: dict[str, Theme] = {}
    problems: list[ThemeProblem] = []
    shipped = shipped_theme_dir()
    for folder in dirs if dirs is not None else [shipped, user_theme_dir()]:
        if not folder.is_dir():
            continue
        for path in sorted(folder.glob("*.toml")):
            try:
                theme = load_theme_file(path, trusted=folder == shipped)
            except ValueError as exc:
                problems.append(ThemeProblem(path, str(exc)))
                continue
            themes[theme.name] = theme
    return list(themes.values()), problems


def role_defaults(base: dict[str, str]) -> dict[str, str]:
    """Role values for a theme that leaves them out, from its generated base colours."""
    return {role: base.get(ROLE_FALLBACK[role], base.get("foreground", "")) for role in ROLES}


def role_colour(variables: dict[str, str], role: str) -> Color:
    value = variables.get(role) or variables.get(ROLE_FALLBACK.get(role, ""), "")
    try:
        return Color.parse(value)
    except ColorParseError:
        return Color.parse(variables.get("foreground", "white"))


def role_style(variables: dict[str, str], role: str, *, bold: bool = False) -> Style:
    """A Rich style for a role, for text built in Python (table cells, list prompts)."""
    return Style(color=role_colour(variables, role).rich_color, bold=bold)
