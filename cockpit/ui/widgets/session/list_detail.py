"""A list of session items beside the selected item's detail (discoveries, launch profiles)."""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from cockpit.model.session import Session
from cockpit.ui.focus_now import focus_now
from cockpit.ui.widgets.session.restorable import RestorableOptionList


class Listed(Protocol):
    """What a list shows: anything with an id (a profile, a discovery, a setup row's record)."""

    @property
    def id(self) -> str: ...


ItemT = TypeVar("ItemT", bound=Listed)


class ListDetailView(Horizontal, Generic[ItemT]):
    """Subclasses name their list widget and say how an item shows in the list and in detail."""

    list_type: type[RestorableOptionList]
    detail_id = ""
    empty_text = ""
    nothing_selected = ""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._session: Session | None = None

    # ----- what a subclass provides --------------------------------------------------------
    def items(self, session: Session) -> list[ItemT]:
        raise NotImplementedError

    def prompt(self, item: ItemT) -> Content:
        raise NotImplementedError

    def detail(self, session: Session, item: ItemT) -> Content:
        raise NotImplementedError

    def item_chosen(self, ident: str) -> None:
        """Enter on an item (default: nothing)."""

    # ----- shared behaviour ------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield self.list_type()
        with VerticalScroll(id=f"{self.detail_id}-scroll"):
            yield Static("", id=self.detail_id)

    def show(self, session: Session) -> None:
        self._session = session
        self.query_one(self.list_type).replace_options(
            [Option(self.prompt(item), id=item.id) for item in self.items(session)])
        self._show_detail()

    def _show_detail(self) -> None:
        if self._session is None:
            return
        ident = self.query_one(self.list_type).selected_id()
        item = next((i for i in self.items(self._session) if i.id == ident), None)
        detail = self.query_one(f"#{self.detail_id}", Static)
        if item is None:
            detail.update(Content.styled(self.empty_text, "$foreground-muted"))
        else:
            detail.update(self.detail(self._session, item))

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        self._show_detail()

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.item_chosen(event.option.id)

    def focus_view(self) -> None:
        focus_now(self.query_one(self.list_type))

    def select(self, ident: str) -> None:
        self.query_one(self.list_type).select_id(ident)
        self._show_detail()

    def _selected_id(self) -> str | None:
        ident = self.query_one(self.list_type).selected_id()
        if ident is None:
            self.notify(self.nothing_selected, severity="warning", timeout=2)
        return ident
