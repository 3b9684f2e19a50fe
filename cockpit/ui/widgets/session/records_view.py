"""Tables of what the session records: patched files, and package versions with their
drift; a / e / d add, edit and delete records through the forms."""

from __future__ import annotations

from typing import Protocol

from textual.message import Message
from textual.widgets import DataTable

from cockpit.model.package_drift import DriftRow
from cockpit.model.session import Session
from cockpit.ui import messages as msg
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import inert, plain
from cockpit.ui.widgets.session.restorable import RestorableTable

_STATE_ROLE = {"applied": "success", "reverted": "foreground-muted", "harmless": "primary", "problematic": "error"}


class _Listing(Protocol):
    def selected_id(self) -> str | None: ...


class _Records(Protocol):
    """What RecordActions needs of the widget it is mixed into (a table, a list view)."""

    collection: str

    def record_id(self) -> str | None: ...

    def action_edit_record(self) -> None: ...

    def post_message(self, message: Message) -> bool: ...


class RecordActions:
    """a / e / d on a view of simple records: the intents; the screen opens the form."""

    collection = ""

    def record_id(self: _Listing) -> str | None:
        return self.selected_id()

    def action_add_record(self: _Records) -> None:
        self.post_message(msg.RecordAddRequested(self.collection))

    def action_edit_record(self: _Records) -> None:
        if ident := self.record_id():
            self.post_message(msg.RecordEditRequested(self.collection, ident))

    def action_delete_record(self: _Records) -> None:
        if ident := self.record_id():
            self.post_message(msg.RecordDeleteRequested(self.collection, ident))

    def on_data_table_row_selected(self: _Records, event: DataTable.RowSelected) -> None:
        """Enter or a double click on a row opens its edit form."""
        event.stop()
        self.action_edit_record()


class FilesTable(RecordActions, RestorableTable):
    BINDINGS = bindings_for("files")
    collection = "files"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.state_key = "files"

    def on_mount(self) -> None:
        # the state before the path: a long path must not push it off an 80-column screen
        for header in ("id", "state", "host", "path", "lines", "what changed"):
            self.add_column(header, key=header)

    def on_data_table_row_selected(self, event: FilesTable.RowSelected) -> None:
        # Enter: the record in full (a long change is cut in its cell); not RecordActions' edit form
        # (Textual calls each class's handler unless the default is prevented).
        event.stop()
        event.prevent_default()
        if event.row_key.value:
            self.post_message(msg.FileDetailRequested(event.row_key.value))

    def show(self, session: Session) -> None:
        from cockpit.ui.theme.themes import role_style

        keep = self.selected_id()
        self.clear()
        for f in session.files:
            state = inert(f.state.value, style=role_style(self.app.theme_variables, _STATE_ROLE[f.state.value]))
            self.add_row(inert(f.id), state, inert(f.host or "—"), inert(f.path), inert(f.lines or "—"),
                         inert(f.change), key=f.id)
        if keep:
            self.select_id(keep)


_DRIFT_ROLE = {"same": "success", "changed": "warning", "missing": "error", "unknown": "foreground-muted"}


class PackagesTable(RecordActions, RestorableTable):
    """The recorded versions; after `r`, what each host runs now beside them."""

    BINDINGS = bindings_for("packages")
    collection = "packages"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=True)
        self.state_key = "packages"
        self.drift: dict[str, DriftRow] = {}  # by package id, from the last check (not saved)
        self._session: Session | None = None

    def on_mount(self) -> None:
        for header in ("id", "host", "name", "version", "captured", "now", "drift"):
            self.add_column(header, key=header)
        self.border_title = "recorded versions · r compares them with what the hosts run now"

    def show(self, session: Session) -> None:
        from cockpit.ui.theme.themes import role_style

        self._session = session
        keep = self.selected_id()
        self.clear()
        for p in session.packages:
            row = self.drift.get(p.id)
            status = "—" if row is None else row.status
            style = "" if row is None else role_style(self.app.theme_variables, _DRIFT_ROLE[row.status])
            self.add_row(inert(p.id), inert(p.host or "—"), inert(p.name), inert(p.version),
                         inert(p.captured.strftime("%Y-%m-%d %H:%M") if p.captured else "—"),
                         inert((row.now if row else None) or "—"), inert(status, style=style), key=p.id)
        if keep:
            self.select_id(keep)

    def show_drift(self, rows: list[DriftRow], summary: str) -> None:
        self.drift = {r.package.id: r for r in rows}
        self.border_title = plain(summary)  # host output: never markup
        if self._session is not None:
            self.show(self._session)

    def action_check_drift(self) -> None:
        self.post_message(msg.DriftCheckRequested())

    def action_record_versions(self) -> None:
        self.post_message(msg.DriftCheckRequested(record=True))
