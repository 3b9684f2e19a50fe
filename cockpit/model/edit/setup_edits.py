"""The campaign's setup edits: title, goal, targets, instructions, hosts. A part SessionEditor owns."""

from __future__ import annotations

from typing import Any

from cockpit.model.edit.editor_core import EditError, EditorCore, find, new_id
from cockpit.model.ids import PREFIX, next_id
from cockpit.model.session import Host, Instruction, Session, Target


class SetupEdits:
    """SessionEditor's edits of the campaign's setup: goal, targets, instructions, hosts,
    through the editor's one core."""

    def __init__(self, core: EditorCore) -> None:
        self._core = core

    @staticmethod
    def _what_changed(old: object, fields: dict[str, Any]) -> str:
        """`field: before -> after` for each field that differs (the journal's text)."""
        def show(value: object) -> str:
            value = getattr(value, "value", value)
            return "(none)" if value in (None, "") else repr(value) if isinstance(value, str) else str(value)

        return "; ".join(f"{key}: {show(getattr(old, key))} -> {show(value)}"
                         for key, value in fields.items() if getattr(old, key) != value) or "no change"

    def set_title(self, title: str) -> None:
        """The campaign's title (the header, the handoff's first line); the same one writes nothing."""
        title = title.strip()
        if not title:
            raise EditError("a campaign needs a title")
        if title == self._core.session.title:
            return

        def change(s: Session) -> None:
            s.title = title
        self._core.apply(f"title set: {title}", change, kind="title.edited")

    def set_goal(self, **fields: object) -> None:
        """Summary, model and hardware (the targets have their own edits)."""
        text = self._what_changed(self._core.session.goal, fields)

        def change(s: Session) -> None:
            for key, value in fields.items():
                setattr(s.goal, key, value)
        self._core.apply(f"goal edited: {text}", change, kind="goal.edited")

    def add_target(self, **fields: object) -> str:
        ident = next_id(PREFIX["targets"], (t.id for t in self._core.session.goal.targets))

        def change(s: Session) -> str:
            s.goal.targets = [*s.goal.targets, Target.model_validate({**fields, "id": ident})]
            return ident
        what = " ".join(str(getattr(fields.get(k), "value", fields.get(k))) for k in ("metric", "comparator", "value"))
        return self._core.apply(f"target added: {what}", change, kind="target.added", ref=ident)

    def edit_target(self, ident: str, **fields: object) -> None:
        old = find(self._core.session.goal.targets, ident) if any(
            t.id == ident for t in self._core.session.goal.targets) else None
        text = self._what_changed(old, fields) if old is not None else ""

        def change(s: Session) -> None:
            targets = s.goal.targets
            current = find(targets, ident)
            # Validated as a whole: a min above the max is refused, not half-applied.
            targets[targets.index(current)] = Target(**{**current.model_dump(), **fields})
        self._core.apply(f"target {ident} edited: {text}", change, kind="target.edited", ref=ident)

    def delete_target(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.goal.targets = [t for t in s.goal.targets if t is not find(s.goal.targets, ident)]
        self._core.apply(f"target deleted: {ident}", change, kind="target.deleted", ref=ident)

    def add_instruction(self, text: str) -> str:
        ident = new_id(self._core.session, "instructions")

        def change(s: Session) -> str:
            s.instructions.append(Instruction(id=ident, text=text))
            return ident
        return self._core.apply(f"instruction added: {text}", change, kind="instruction.added", ref=ident)

    def edit_instruction(self, ident: str, text: str) -> None:
        def change(s: Session) -> None:
            find(s.instructions, ident).text = text
        self._core.apply(f"instruction {ident} edited: {text}", change, kind="instruction.edited", ref=ident)

    def move_instruction(self, ident: str, step: int) -> None:
        """Up (-1) or down (+1) in the list: the order is the order of importance."""
        def change(s: Session) -> None:
            items = s.instructions
            pos = items.index(find(items, ident))
            dest = pos + step
            if not 0 <= dest < len(items):
                raise EditError(f"{ident} is already {'last' if step > 0 else 'first'}")
            items[pos], items[dest] = items[dest], items[pos]
        self._core.apply(f"instruction {ident} moved {'down' if step > 0 else 'up'}", change,
                   kind="instruction.moved", ref=ident)

    def delete_instruction(self, ident: str) -> None:
        def change(s: Session) -> None:
            s.instructions.remove(find(s.instructions, ident))
        self._core.apply(f"instruction deleted: {ident}", change, kind="instruction.deleted", ref=ident)

    def add_host(self, **fields: object) -> str:
        def change(s: Session) -> str:
            s.hosts.append(Host.model_validate(fields))
            return s.hosts[-1].name
        named = fields.get("name")
        return self._core.apply(f"host added: {named}", change, kind="host.added", ref=named if isinstance(named, str) else None)

    def edit_host(self, name: str, /, **fields: object) -> None:
        """Change a host; a new name is followed by the records that name it."""
        old = next((h for h in self._core.session.hosts if h.name == name), None)
        text = self._what_changed(old, fields) if old is not None else ""

        def change(s: Session) -> None:
            current = next((h for h in s.hosts if h.name == name), None)
            if current is None:
                raise KeyError(f"no host named '{name}'")
            new = Host(**{**current.model_dump(), **fields})
            s.hosts[s.hosts.index(current)] = new
            if new.name != name:
                for collection in ("files", "packages", "launch"):
                    for item in getattr(s, collection):
                        if item.host == name:
                            item.host = new.name
        renamed = fields.get("name", name)
        self._core.apply(f"host {name} edited: {text}", change, kind="host.edited",
                   ref=renamed if isinstance(renamed, str) else name)

    def delete_host(self, name: str) -> None:
        def change(s: Session) -> None:
            current = next((h for h in s.hosts if h.name == name), None)
            if current is None:
                raise KeyError(f"no host named '{name}'")
            users = [item.id for collection in ("files", "packages", "launch")
                     for item in getattr(s, collection) if item.host == name]
            if users:
                raise EditError(f"host {name} is named by {', '.join(users)}: change those first")
            s.hosts.remove(current)
        self._core.apply(f"host deleted: {name}", change, kind="host.deleted", ref=name)
