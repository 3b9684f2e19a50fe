"""The one registry of bindable actions: it feeds BINDINGS, the footer, the palette and `?`.

Each entry names the widget scope that owns it (`screen` for the main screen, `tasks`
for the task board, ...). A scope's BINDINGS are built from here with `bindings_for`,
so a key lives in exactly one place. Binding ids are the entry ids, which is what
`App.set_keymap` overrides. No default key uses ctrl+a or ctrl+b (tmux prefixes).
"""

from __future__ import annotations

from dataclasses import dataclass

from textual.binding import Binding, BindingType


@dataclass(frozen=True, slots=True)
class ActionSpec:
    id: str
    """kebab-case binding id, `scope.verb`; what a keymap override names."""
    scope: str
    """Which widget binds it: screen, tasks, discoveries, benchmarks, launch, files, packages, log."""
    keys: str
    """Textual key string, comma separated for alternates; the first is displayed."""
    action: str
    """Action run on the scope's widget (e.g. `move(1)`)."""
    area: str
    verb: str
    description: str
    footer: bool = False
    key_display: str | None = None

    @property
    def title(self) -> str:
        """Palette title in "area: Verb" form."""
        return f"{self.area}: {self.verb}"

    def binding(self) -> Binding:
        return Binding(
            self.keys,
            self.action,
            self.verb,
            show=self.footer,
            key_display=self.key_display,
            tooltip=self.description,
            id=self.id,
        )


# Tabs in display order: (tab id, label, short label, key).
TABS: tuple[tuple[str, str, str, str], ...] = (
    ("main", "Main", "Main", "1"),
    ("goal", "Goal", "Goal", "2"),
    ("discoveries", "Discoveries", "Disc", "3"),
    ("benchmarks", "Benchmarks", "Bench", "4"),
    ("files", "Files", "Files", "5"),
    ("packages", "Packages", "Pkgs", "6"),
    ("launch", "Launch", "Launch", "7"),
    ("last", "Last action", "Last", "8"),
    ("topology", "Topology", "Topo", "9"),
    ("handoff", "Handoff", "Handoff", "0"),
    # no number key is left: F for Fleet
    ("fleet", "Fleet", "Fleet", "F"),
)

# The tab a scope lives in, so the palette can bring it into view before acting.
SCOPE_TAB = {
    "tasks": "main",
    "log": "main",
    "discoveries": "discoveries",
    "benchmarks": "benchmarks",
    "launch": "launch",
    "packages": "packages",
    "files": "files",
    "fleet": "fleet",
}

_A = ActionSpec
ACTIONS: tuple[ActionSpec, ...] = (
    # session and view: bound on the main screen
    _A("session.save", "screen", "ctrl+s", "save", "session", "Save", "Write the session file now", True),
    _A("session.undo", "screen", "u,ctrl+z", "undo", "edit", "Undo", "Undo the last edit", True),
    _A("session.redo", "screen", "ctrl+r,ctrl+y", "redo", "edit", "Redo", "Redo the last undone edit"),
    _A("session.last-action", "screen", "L", "set_last_action", "session", "Set last action",
       "Record what you just did, the next step and the fallback"),
    _A("session.toggle-autosave", "screen", "ctrl+o", "toggle_autosave", "session", "Toggle autosave",
       "Turn debounced autosave on or off (saved in the session)"),
    _A("session.quit", "screen", "q", "quit", "session", "Quit",
       "Quit; asks first when there are unsaved edits", True),
    _A("view.help", "screen", "question_mark", "help", "view", "Keys",
       "Show every key, generated from the live bindings", True, "?"),
    _A("view.next-pane", "screen", "w", "next_pane", "view", "Next pane",
       "Focus the next pane of the main tab (switches pane when narrow)"),
    _A("view.next-theme", "screen", "ctrl+t", "next_theme", "view", "Next theme",
       "Switch to the next cockpit theme (saved in the session)"),
    _A("view.dismiss-banner", "screen", "x", "dismiss_banner", "view", "Dismiss banner",
       "Hide the 'where you left off' banner"),
    *(
        _A(f"view.tab-{tab}", "screen", key, f"show_tab('{tab}')", "view", f"Show {label}",
           f"Switch to the {label} tab")
        for tab, label, _short, key in TABS
    ),
    # task board
    _A("tasks.prev-column", "tasks", "left,h", "column(-1)", "tasks", "Previous column",
       "Select the column to the left"),
    _A("tasks.next-column", "tasks", "right,l", "column(1)", "tasks", "Next column",
       "Select the column to the right"),
    _A("tasks.cursor-up", "tasks", "k", "cursor(-1)", "tasks", "Previous task", "Select the task above"),
    _A("tasks.cursor-down", "tasks", "j", "cursor(1)", "tasks", "Next task", "Select the task below"),
    _A("tasks.move-right", "tasks", "greater_than_sign,shift+right", "move(1)", "tasks", "Move right",
       "Move the task to the next column (todo > doing > done > blocked)", True, ">"),
    _A("tasks.move-left", "tasks", "less_than_sign,shift+left", "move(-1)", "tasks", "Move left",
       "Move the task to the previous column", True, "<"),
    _A("tasks.move-up", "tasks", "K,shift+up", "reorder(-1)", "tasks", "Move up",
       "Move the task up within its column"),
    _A("tasks.move-down", "tasks", "J,shift+down", "reorder(1)", "tasks", "Move down",
       "Move the task down within its column"),
    _A("tasks.add", "tasks", "a", "add", "tasks", "Add", "Add a task to the selected column", True),
    _A("tasks.edit", "tasks", "e", "edit", "tasks", "Edit", "Edit the selected task", True),
    _A("tasks.delete", "tasks", "d", "delete", "tasks", "Delete", "Delete the selected task (undo brings it back)"),
    _A("tasks.link", "tasks", "c", "link", "tasks", "Link discoveries",
       "Choose the discoveries the task rests on"),
    _A("tasks.reviewed", "tasks", "r", "acknowledge", "tasks", "Acknowledge review",
       "Clear the review flag set when a linked discovery changed status"),
    # discoveries
    _A("discoveries.add", "discoveries", "a", "add", "discoveries", "Add", "Record a new claim", True),
    _A("discoveries.edit", "discoveries", "e", "edit", "discoveries", "Edit",
       "Edit claim, evidence, tags and links", True),
    _A("discoveries.cycle", "discoveries", "s", "cycle", "discoveries", "Cycle status",
       "hypothesis > confirmed > refuted; flags linked tasks for review", True),
    # benchmarks
    _A("benchmarks.add", "benchmarks", "a", "add", "benchmarks", "Add", "Record a benchmark result", True),
    _A("benchmarks.delete", "benchmarks", "d", "delete", "benchmarks", "Delete", "Delete the selected benchmark", True),
    _A("benchmarks.sort", "benchmarks", "s", "sort", "benchmarks", "Sort by next column",
       "Sort the table by the next column", True),
    _A("benchmarks.reverse", "benchmarks", "S", "reverse", "benchmarks", "Reverse sort", "Reverse the sort order"),
    # launch profiles
    _A("launch.working", "launch", "m", "mark_working", "launch", "Mark working",
       "Mark the selected profile as the working one", True),
    _A("launch.copy", "launch", "y", "copy", "launch", "Copy command",
       "Copy the profile's command (with env) to the clipboard via OSC 52", True),
    # (not in the footer: at 80 columns it would push out `? Keys`; `?` and the palette list them)
    _A("launch.add", "launch", "a", "add_record", "launch", "Add", "Record a new launch profile"),
    _A("launch.edit", "launch", "e", "edit_record", "launch", "Edit", "Edit the profile's name, command, host, env, notes"),
    _A("launch.diff", "launch", "d", "diff_base", "launch", "Diff base",
       "Compare against the selected profile: the others then show what changes from it (d on it again: off)", True),
    # patched files and packages
    _A("files.add", "files", "a", "add_record", "files", "Add", "Record a patched file", True),
    _A("files.edit", "files", "e", "edit_record", "files", "Edit", "Edit the selected file's record", True),
    _A("files.delete", "files", "d", "delete_record", "files", "Delete", "Delete the selected file's record (u undoes)", True),
    _A("packages.add", "packages", "a", "add_record", "packages", "Add", "Record a package version", True),
    _A("packages.edit", "packages", "e", "edit_record", "packages", "Edit", "Edit the selected package's version or host", True),
    _A("packages.delete", "packages", "d", "delete_record", "packages", "Delete", "Delete the selected package (u undoes)", True),
    _A("packages.drift", "packages", "r", "check_drift", "packages", "Check drift",
       "Compare the recorded versions with what each host runs now (over SSH; this machine for "
       "packages with no host)", True),
    # log pane (view state only; the live tail feeds it)
    _A("log.follow", "log", "f", "toggle_follow", "log", "Toggle follow", "Follow the end of the log, or pause", True),
    _A("log.search", "log", "slash", "search", "log", "Search", "Search the log", True, "/"),
    _A("log.filter", "log", "backslash", "filter", "log", "Filter", "Show only lines matching a pattern", True, "\\"),
    _A("log.errors-only", "log", "E", "toggle_errors", "log", "Errors only", "Show only error lines"),
    _A("log.hide-batches", "log", "b", "toggle_batches", "log", "Hide batch lines",
       "Hide or show the prefill/decode batch lines"),
    _A("log.next-match", "log", "n", "search_next", "log", "Next match",
       "Go to the next line matching the search (pauses follow)"),
    _A("log.prev-match", "log", "N", "search_previous", "log", "Previous match",
       "Go to the previous line matching the search (pauses follow)"),
    # fleet tab (hosts read through Prometheus)
    _A("fleet.cursor-up", "fleet", "up,k", "cursor(-1)", "fleet", "Previous host", "Select the host above"),
    _A("fleet.cursor-down", "fleet", "down,j", "cursor(1)", "fleet", "Next host", "Select the host below"),
    _A("fleet.focus-host", "fleet", "enter", "select_host", "fleet", "Focus host",
       "Show the selected host's log and GPU panes (a session host of that name)", True),
    # modal dialogs: bound on the dialog, not offered in the palette (they act on the dialog)
    _A("form.save", "form", "ctrl+s", "submit", "form", "Save", "Check the form and apply it", True),
    _A("form.cancel", "form", "escape", "cancel", "form", "Cancel", "Close the form without changes", True, "esc"),
    _A("quit.save", "quit", "s", "choose('save')", "quit", "Save and quit", "Save, then quit", True),
    _A("quit.discard", "quit", "d", "choose('discard')", "quit", "Quit without saving",
       "Quit and drop the unsaved edits", True),
    _A("quit.cancel", "quit", "escape", "choose(None)", "quit", "Cancel", "Stay in cockpit", True, "esc"),
    _A("help.close", "help", "escape,q,question_mark", "close", "help", "Close", "Close the keys screen", True, "esc"),
)

# Scopes that live on a modal dialog: bound there, and not palette commands.
MODAL_SCOPES = frozenset({"form", "quit", "help"})

BY_ID = {spec.id: spec for spec in ACTIONS}


def bindings_for(scope: str) -> list[BindingType]:
    # BindingType: what Textual declares BINDINGS as (list is invariant).
    return [spec.binding() for spec in ACTIONS if spec.scope == scope]


def specs_for(scope: str) -> list[ActionSpec]:
    return [spec for spec in ACTIONS if spec.scope == scope]


FORBIDDEN_KEYS = frozenset({"ctrl+a", "ctrl+b"})
