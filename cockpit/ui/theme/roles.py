"""The colour roles a cockpit theme names, and the base colour that stands in for each.

Its own module so that the theme loader (themes.py) and the theme-file schema
(schema.py) both read it without importing each other.
"""

from __future__ import annotations

ROLES: tuple[str, ...] = (
    "power-starved", "power-ok", "power-near-limit",
    "topo-x", "topo-nv", "topo-pix", "topo-pxb", "topo-phb", "topo-node", "topo-sys",
    "task-todo", "task-doing", "task-done", "task-blocked", "task-review",
    "log-error", "log-warn",
    "target-met", "target-missed",
)

# For themes that do not name a role (Textual's built-in ones): which base colour stands in.
ROLE_FALLBACK: dict[str, str] = {
    "power-starved": "warning", "power-ok": "success", "power-near-limit": "error",
    "topo-x": "foreground-muted", "topo-nv": "success", "topo-pix": "success",
    "topo-pxb": "primary", "topo-phb": "accent", "topo-node": "warning", "topo-sys": "error",
    "task-todo": "foreground-muted", "task-doing": "primary", "task-done": "success",
    "task-blocked": "error", "task-review": "accent",
    "log-error": "error", "log-warn": "warning",
    "target-met": "success", "target-missed": "error",
}

__all__ = ["ROLES", "ROLE_FALLBACK"]
