"""Read-only tables of what the session records: patched files and package versions."""

from __future__ import annotations

from rich.text import Text

from cockpit.model.session import Session
from cockpit.ui.widgets.restorable import RestorableTable

_STATE_ROLE = {"applied": "success", "reverted": "foreground-muted", "harmless": "primary", "problematic": "error"}


class FilesTable(RestorableTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.state_key = "files"

    def on_mount(self) -> None:
        for header in ("id", "host", "path", "lines", "state", "what changed"):
            self.add_column(header, key=header)

    def show(self, session: Session) -> None:
        from cockpit.ui.themes import role_style

        keep = self.selected_id()
        self.clear()
        for f in session.files:
            self.add_row(Text(f.id), Text(f.host or "—"), Text(f.path), Text(f.lines or "—"),
                         Text(f.state.value, style=role_style(self.app.theme_variables, _STATE_ROLE[f.state.value])),
                         Text(f.change or ""), key=f.id)
        if keep:
            self.select_id(keep)


class PackagesTable(RestorableTable):
    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.state_key = "packages"

    def on_mount(self) -> None:
        for header in ("id", "host", "name", "version", "captured"):
            self.add_column(header, key=header)

    def show(self, session: Session) -> None:
        keep = self.selected_id()
        self.clear()
        for p in session.packages:
            self.add_row(Text(p.id), Text(p.host or "—"), Text(p.name), Text(p.version),
                         Text(p.captured.strftime("%Y-%m-%d %H:%M") if p.captured else "—"), key=p.id)
        if keep:
            self.select_id(keep)
