"""What the main screen does with the Goal tab's intents: the title, goal, targets,
instructions and hosts, each through a form and one SessionEditor call (undoable,
journaled); the selection follows the item. Also the Files and Benchmarks tabs' detail
views (Enter on a row; `e` from there edits)."""

from __future__ import annotations

from textual.screen import Screen

from cockpit.ui import messages as msg
from cockpit.ui.screens.main.edit_runner import EditRunner, find
from cockpit.ui.widgets.session.setup_view import SetupView


class SetupHandlers:
    """The campaign's setup, from `screen` (forms are pushed from it)."""

    def __init__(self, screen: Screen[None], edits: EditRunner) -> None:
        self.screen = screen
        self.edits = edits

    def _select(self, ident: str) -> None:
        self.screen.query_one(SetupView).select(ident)

    def add_target(self) -> None:
        from cockpit.ui.screens.forms.setup import TargetForm  # loaded when a form first opens

        def done(result: dict[str, object] | None) -> None:
            if result is not None:
                ident = self.edits.apply(lambda ed: ed.add_target(**result))
                if ident:
                    self._select(ident)
                    self.edits.notify(f"Target {ident} added", timeout=3)

        self.screen.app.push_screen(TargetForm(), done)

    def add(self, message: msg.SetupAddRequested) -> None:
        from cockpit.ui.screens.forms.setup import HostForm, InstructionForm

        if message.kind == "target":
            self.add_target()
        elif message.kind == "instruction":
            def added(text: str | None) -> None:
                if text is not None and (ident := self.edits.apply(lambda ed: ed.add_instruction(text))):
                    self._select(ident)

            self.screen.app.push_screen(InstructionForm(), added)
        elif message.kind == "host":
            def host_added(result: dict[str, object] | None) -> None:
                if result is not None and (name := self.edits.apply(lambda ed: ed.add_host(**result))):
                    self._select(f"host:{name}")

            taken = [h.name for h in self.edits.session.hosts]
            self.screen.app.push_screen(HostForm(taken=taken), host_added)

    def edit(self, message: msg.SetupEditRequested) -> None:
        from cockpit.ui.screens.forms.setup import GoalForm, HostForm, InstructionForm, TargetForm

        app, session = self.screen.app, self.edits.session
        kind, ident = message.kind, message.ident
        if kind == "title":
            from cockpit.ui.screens.prompt import PromptScreen

            def title_done(text: str | None) -> None:
                if text is not None and text.strip() != session.title:
                    self.edits.apply(lambda ed: ed.set_title(text))

            app.push_screen(PromptScreen("Campaign title", session.title), title_done)
        elif kind == "goal":
            def goal_done(result: dict[str, object] | None) -> None:
                old = session.goal
                if result is not None and result != {"summary": old.summary, "model": old.model,
                                                     "hardware": old.hardware}:
                    self.edits.apply(lambda ed: ed.set_goal(**result))

            app.push_screen(GoalForm(session.goal), goal_done)
        elif kind == "target":
            target = find(session.goal.targets, ident)
            if target is None:
                return

            def target_done(result: dict[str, object] | None) -> None:
                if result is not None and any(getattr(target, k) != v for k, v in result.items()):
                    self.edits.apply(lambda ed: ed.edit_target(ident, **result))
                    self._select(ident)

            app.push_screen(TargetForm(target), target_done)
        elif kind == "instruction":
            item = find(session.instructions, ident)
            if item is None:
                return

            def text_done(text: str | None) -> None:
                if text is not None and text != item.text:
                    self.edits.apply(lambda ed: ed.edit_instruction(ident, text))
                    self._select(ident)

            app.push_screen(InstructionForm(item), text_done)
        elif kind == "host":
            host = next((h for h in session.hosts if h.name == ident), None)
            if host is None:
                return

            def host_done(result: dict[str, object] | None) -> None:
                if result is not None and any(getattr(host, k) != v for k, v in result.items()):
                    if self.edits.apply(lambda ed: ed.edit_host(ident, **result)) is not False:
                        self._select(f"host:{result['name']}")

            app.push_screen(HostForm(host, [h.name for h in session.hosts]), host_done)

    def delete(self, message: msg.SetupDeleteRequested) -> None:
        kind, ident = message.kind, message.ident
        edit = {"target": lambda ed: ed.delete_target(ident),
                "instruction": lambda ed: ed.delete_instruction(ident),
                "host": lambda ed: ed.delete_host(ident)}.get(kind)
        if edit is not None:
            self.edits.apply(edit, done=f"Deleted {kind} {ident} (u undoes)")

    def move_instruction(self, message: msg.InstructionMoveRequested) -> None:
        self.edits.apply(lambda ed: ed.move_instruction(message.ident, message.step))
        self._select(message.ident)

    # ----- the Files and Benchmarks tabs' detail views ----------------------------------------
    def file_detail(self, message: msg.FileDetailRequested) -> None:
        from cockpit.ui.screens.file_detail import FileDetailScreen

        session = self.edits.session
        item = find(session.files, message.ident)
        if item is None:
            return

        def closed(choice: str | None) -> None:
            if choice == "edit":
                self.screen.post_message(msg.RecordEditRequested("files", item.id))

        self.screen.app.push_screen(FileDetailScreen(session, item), closed)

    def benchmark_detail(self, message: msg.BenchmarkDetailRequested) -> None:
        from cockpit.ui.screens.bench_detail import BenchDetailScreen

        session = self.edits.session
        bench = find(session.benchmarks, message.ident)
        if bench is None:
            return

        def closed(choice: str | None) -> None:
            if choice == "edit":
                self.screen.post_message(msg.BenchmarkEditRequested(bench.id))

        self.screen.app.push_screen(BenchDetailScreen(session, bench), closed)
