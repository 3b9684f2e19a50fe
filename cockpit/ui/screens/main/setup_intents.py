"""The Goal tab's intents: the goal, targets, instructions and hosts, each through a form
and one SessionEditor call (undoable, journaled); the selection follows the item. Also
the Files tab's detail view (Enter on a file)."""

from __future__ import annotations

from cockpit.ui import messages as msg
from cockpit.ui.screens.main.main_intents import MainIntents
from cockpit.ui.widgets.session.setup_view import SetupView


def _setup_forms():  # noqa: ANN202 - imported when a form first opens (not at startup)
    from cockpit.ui.screens.forms import setup_forms

    return setup_forms


class SetupIntents(MainIntents):
    def _select_setup(self, ident: str) -> None:
        self.query_one(SetupView).select(ident)

    def open_target_form(self) -> None:
        def done(result: dict[str, object] | None) -> None:
            if result is not None:
                ident = self._apply(lambda ed: ed.add_target(**result))
                if ident:
                    self._select_setup(ident)
                    self.notify(f"Target {ident} added", timeout=3)

        self.app.push_screen(_setup_forms().TargetForm(), done)

    def action_add_target(self) -> None:
        self.open_target_form()

    def on_setup_add_requested(self, message: msg.SetupAddRequested) -> None:
        forms = _setup_forms()
        if message.kind == "target":
            self.open_target_form()
        elif message.kind == "instruction":
            def added(text: str | None) -> None:
                if text is not None and (ident := self._apply(lambda ed: ed.add_instruction(text))):
                    self._select_setup(ident)

            self.app.push_screen(forms.InstructionForm(), added)
        elif message.kind == "host":
            def host_added(result: dict[str, object] | None) -> None:
                if result is not None and (name := self._apply(lambda ed: ed.add_host(**result))):
                    self._select_setup(f"host:{name}")

            self.app.push_screen(forms.HostForm(taken=[h.name for h in self._session.hosts]), host_added)

    def on_setup_edit_requested(self, message: msg.SetupEditRequested) -> None:
        forms = _setup_forms()
        session = self._session
        kind, ident = message.kind, message.ident
        if kind == "title":
            from cockpit.ui.screens.prompt import PromptScreen

            def title_done(text: str | None) -> None:
                if text is not None and text.strip() != session.title:
                    self._apply(lambda ed: ed.set_title(text))

            self.app.push_screen(PromptScreen("Campaign title", session.title), title_done)
        elif kind == "goal":
            def goal_done(result: dict[str, object] | None) -> None:
                old = session.goal
                if result is not None and result != {"summary": old.summary, "model": old.model,
                                                     "hardware": old.hardware}:
                    self._apply(lambda ed: ed.set_goal(**result))

            self.app.push_screen(forms.GoalForm(session.goal), goal_done)
        elif kind == "target":
            target = next((t for t in session.goal.targets if t.id == ident), None)
            if target is None:
                return

            def target_done(result: dict[str, object] | None) -> None:
                if result is not None and any(getattr(target, k) != v for k, v in result.items()):
                    self._apply(lambda ed: ed.edit_target(ident, **result))
                    self._select_setup(ident)

            self.app.push_screen(forms.TargetForm(target), target_done)
        elif kind == "instruction":
            item = next((i for i in session.instructions if i.id == ident), None)
            if item is None:
                return

            def text_done(text: str | None) -> None:
                if text is not None and text != item.text:
                    self._apply(lambda ed: ed.edit_instruction(ident, text))
                    self._select_setup(ident)

            self.app.push_screen(forms.InstructionForm(item), text_done)
        elif kind == "host":
            host = next((h for h in session.hosts if h.name == ident), None)
            if host is None:
                return

            def host_done(result: dict[str, object] | None) -> None:
                if result is not None and any(getattr(host, k) != v for k, v in result.items()):
                    if self._apply(lambda ed: ed.edit_host(ident, **result)) is not False:
                        self._select_setup(f"host:{result['name']}")

            self.app.push_screen(forms.HostForm(host, [h.name for h in session.hosts]), host_done)

    def on_setup_delete_requested(self, message: msg.SetupDeleteRequested) -> None:
        kind, ident = message.kind, message.ident
        edit = {"target": lambda ed: ed.delete_target(ident),
                "instruction": lambda ed: ed.delete_instruction(ident),
                "host": lambda ed: ed.delete_host(ident)}.get(kind)
        if edit is not None:
            self._apply(edit, done=f"Deleted {kind} {ident} (u undoes)")

    def on_instruction_move_requested(self, message: msg.InstructionMoveRequested) -> None:
        self._apply(lambda ed: ed.move_instruction(message.ident, message.step))
        self._select_setup(message.ident)

    # ----- the Files tab's detail view -------------------------------------------------------
    def on_file_detail_requested(self, message: msg.FileDetailRequested) -> None:
        from cockpit.ui.screens.file_detail import FileDetailScreen

        item = next((f for f in self._session.files if f.id == message.ident), None)
        if item is None:
            return

        def closed(choice: str | None) -> None:
            if choice == "edit":
                self.post_message(msg.RecordEditRequested("files", item.id))

        self.app.push_screen(FileDetailScreen(self._session, item), closed)

    def on_benchmark_detail_requested(self, message: msg.BenchmarkDetailRequested) -> None:
        from cockpit.ui.screens.bench_detail import BenchDetailScreen

        bench = next((b for b in self._session.benchmarks if b.id == message.ident), None)
        if bench is None:
            return

        def closed(choice: str | None) -> None:
            if choice == "edit":
                self.post_message(msg.BenchmarkEditRequested(bench.id))

        self.app.push_screen(BenchDetailScreen(self._session, bench), closed)
