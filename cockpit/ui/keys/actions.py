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
    """Which widget binds it: screen, list (every list and table), tasks, discoveries,
    benchmarks, launch, files, packages, log, compare; logapp (`cockpit log`'s own)."""
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
    "goal": "goal",
    "tasks": "main",
    "log": "main",
    "discoveries": "discoveries",
    "benchmarks": "benchmarks",
    "launch": "launch",
    "packages": "packages",
    "files": "files",
    "handoff": "handoff",
    "fleet": "fleet",
}

# The one rule of every list and table (the board's columns, Discoveries, Launch,
# Benchmarks, Files, Packages): j / k move, g / G go to the ends, Enter opens, `e` edits
# (each view's own `e`); a click selects, a double click opens.

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
    _A("view.dismiss-toasts", "screen", "escape", "dismiss_toasts", "view", "Dismiss messages",
       "Take down the messages (toasts) shown now", False, "esc"),
    _A("view.dismiss-banner", "screen", "x", "dismiss_banner", "view", "Dismiss banner",
       "Hide the 'where you left off' banner"),
    _A("experiment.sweep", "screen", "B", "app.run_sweep", "experiment", "Run sweep",
       "Run the session's first sweep with bench_serving on the running profile, a benchmark per point"),
    _A("experiment.cancel", "screen", "ctrl+x", "app.cancel_sweep", "experiment", "Cancel sweep",
       "Cancel the running sweep (its client is killed; finished points stay)"),
    _A("experiment.resume", "screen", "ctrl+e", "app.resume_sweep", "experiment", "Resume sweep",
       "Run the points with no record of the last sweep run that was cut short (quit, killed, cancelled)"),
    _A("experiment.fallback", "screen", "ctrl+f", "app.start_fallback", "experiment", "Start fallback",
       "After a start crashed: start the working profile offered as the fallback"),
    _A("search.open", "screen", "Q", "open_search", "search", "Open search view",
       "The search over launch configurations: trials, best so far, Pareto plot; start, pause, resume, stop"),
    # several hosts: bound on the screen so they work from any pane of the main tab
    _A("log.search-anywhere", "screen", "slash", "search_log", "log", "Search log (any pane)",
       "Search the server log from any pane: the log takes the focus and asks for the pattern", False, "/"),
    _A("log.next-host", "screen", "H", "next_log_host", "log", "Next host",
       "Show the next host's log (and its server metrics); in the metrics pane, the next host's metrics",
       True),
    _A("hosts.confirm-log", "screen", "ctrl+l", "app.confirm_log_command", "hosts", "Confirm log command",
       "Show the log_command a host of this session would run (and where), and run it once you say yes: "
       "a command from the session file never runs before you have seen it"),
    _A("hosts.reconnect", "screen", "R", "reconnect_shown", "hosts", "Reconnect shown host",
       "Connect the host whose log is shown again now, skipping the back-off (e.g. after accepting its "
       "host key); the palette has one 'hosts: Reconnect NAME' per host"),
    *(
        _A(f"view.tab-{tab}", "screen", key, f"show_tab('{tab}')", "view", f"Show {label}",
           f"Switch to the {label} tab")
        for tab, label, _short, key in TABS
    ),
    # every list and table
    _A("list.down", "list", "j", "list_step(1)", "list", "Next item", "Select the item below (a text tab: a line down)"),
    _A("list.up", "list", "k", "list_step(-1)", "list", "Previous item", "Select the item above (a text tab: a line up)"),
    _A("list.first", "list", "g", "list_end(-1)", "list", "First item", "Select the first item (a text tab: its top)"),
    _A("list.last", "list", "G", "list_end(1)", "list", "Last item", "Select the last item (a text tab: its end)"),
    _A("list.open", "list", "enter", "list_open", "list", "Open",
       "Open the selected item (its edit form; a double click does the same)"),
    _A("goal.add-target-anywhere", "screen", "T", "add_target", "goal", "Add target (any tab)",
       "Add a target to the goal from any tab; the targets strip updates at once"),
    _A("alerts.jump", "screen", "exclamation_mark", "jump_to_alert", "alerts", "Jump to alert",
       "Show what raised the header's alert (crash, errors, host down, stale GPUs) and mark it seen",
       False, "!"),
    _A("diagnosis.open", "screen", "D", "app.open_findings", "diagnosis", "Findings",
       "The diagnosis's findings over the live panes and the session: accept one as a discovery or dismiss it"),
    _A("alerts.bell", "screen", "ctrl+g", "toggle_alert_bell", "alerts", "Toggle alert bell",
       "Ring the terminal bell when an alert is raised, or not (saved in the session)"),
    # the campaign's setup (Goal tab): goal, targets, instructions, hosts
    _A("goal.edit", "goal", "e", "edit", "goal", "Edit", "Edit the selected goal, target, instruction or host", True),
    _A("goal.title", "goal", "N", "edit_title", "goal", "Edit title",
       "Set the campaign's title (the header and the handoff's first line)", True),
    _A("goal.add-target", "goal", "t", "add('target')", "goal", "Add target",
       "Metric, comparator, value and concurrency range; the targets strip updates at once", True),
    _A("goal.add-instruction", "goal", "i", "add('instruction')", "goal", "Add instruction",
       "A standing instruction or constraint", True),
    _A("goal.add-host", "goal", "H", "add('host')", "goal", "Add host",
       "Name, ssh alias or address, jump, log path or command, GPU source and interval, metrics URL", True),
    _A("goal.delete", "goal", "d", "delete", "goal", "Delete", "Delete the selected target, instruction or host (u undoes)"),
    _A("goal.move-up", "goal", "K", "move(-1)", "goal", "Move up", "Move the selected instruction up"),
    _A("goal.move-down", "goal", "J", "move(1)", "goal", "Move down", "Move the selected instruction down"),
    # task board
    _A("tasks.prev-column", "tasks", "left,h", "column(-1)", "tasks", "Previous column",
       "Select the column to the left"),
    _A("tasks.next-column", "tasks", "right,l", "column(1)", "tasks", "Next column",
       "Select the column to the right"),
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
    _A("tasks.delete", "tasks", "d", "delete", "tasks", "Delete",
       "Delete the selected task: d again to confirm (undo brings it back)"),
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
    _A("benchmarks.add", "benchmarks", "a", "add", "benchmarks", "Add",
       "Record a benchmark result (paste a bench_serving result block into the form to fill it)", True),
    # (not in the footer: at 80 columns it would push out `? Keys`; Enter opens the form too)
    _A("benchmarks.edit", "benchmarks", "e", "edit", "benchmarks", "Edit",
       "Edit any field of the selected benchmark (u undoes)"),
    _A("benchmarks.delete", "benchmarks", "d", "delete", "benchmarks", "Delete", "Delete the selected benchmark", True),
    _A("benchmarks.sort", "benchmarks", "s", "sort", "benchmarks", "Sort",
       "Sort the table by the next column", True),
    _A("benchmarks.reverse", "benchmarks", "S", "reverse", "benchmarks", "Reverse sort", "Reverse the sort order"),
    _A("benchmarks.chart", "benchmarks", "v", "toggle_chart", "benchmarks", "Chart",
       "Show throughput against concurrency as a chart (a line per launch profile), or the table", True),
    _A("benchmarks.metric", "benchmarks", "m", "next_metric", "benchmarks", "Metric",
       "Chart the next throughput: total, output, per-stream tok/s", True),
    _A("benchmarks.compare", "benchmarks", "c", "compare", "benchmarks", "Compare",
       "Two launch profiles side by side per concurrency, with their launch diff", True),
    # launch profiles: what an 80-column footer keeps comes first (start, stop, edit, sweep)
    _A("launch.start", "launch", "r", "start_server", "launch", "Start",
       "Start the selected profile's server on its host (asks first when its command is new)", True),
    _A("launch.stop", "launch", "X", "stop_server", "launch", "Stop server",
       "Stop the session's server on the selected profile's host (SIGTERM, then SIGKILL)", True),
    _A("launch.edit", "launch", "e", "edit_record", "launch", "Edit", "Edit the profile's name, command, host, env, notes",
       True),
    _A("launch.add-sweep", "launch", "b", "add_sweep", "launch", "New sweep",
       "Set up a sweep: dataset and its fields, concurrencies, prompts per point, lengths, request rate", True),
    _A("launch.working", "launch", "m", "mark_working", "launch", "Mark working",
       "Mark the selected profile as the working one", True),
    _A("launch.add", "launch", "a", "add_record", "launch", "Add", "Record a new launch profile", True),
    _A("launch.new-copy", "launch", "n", "copy_profile", "launch", "New copy",
       "A new profile whose form starts as a copy of the selected one (command, host, env, python): "
       "change a flag, save", True),
    _A("launch.restart", "launch", "S", "restart_server", "launch", "Restart server",
       "Stop the server on the profile's host, then start the selected profile", True),
    # (y and E not in the footer: at 80 columns they would push out `? Keys`; `?` and the palette list them)
    _A("launch.copy", "launch", "y", "copy", "launch", "Copy command",
       "Copy the profile's command (with env) to the clipboard via OSC 52"),
    _A("launch.edit-sweep", "launch", "E", "edit_sweep", "launch", "Edit sweep",
       "Edit a sweep: the newest first, each press the one before"),
    # a host's failure text, whole (`!` on its alert)
    _A("failure.copy", "failure", "y", "copy_fix", "failure", "Copy fix",
       "Copy the command that fixes the host's failure (the ssh-keyscan line)", True),
    _A("failure.close", "failure", "escape,q", "close", "failure", "Close", "Close the failure text", True),
    _A("launch.diff", "launch", "d", "diff_base", "launch", "Diff base",
       "Compare against the selected profile: the others then show what changes from it (d on it again: off)", True),
    _A("launch.compare", "launch", "c", "compare", "launch", "Compare",
       "The diff base (else the working profile) against the selected one: runs per concurrency and the diff"),
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
    _A("packages.record", "packages", "v", "record_versions", "packages", "Record versions now",
       "Check drift, then take the versions each host runs now as the record for the changed packages "
       "(cockpit drift --record; u undoes)", True),
    # the handoff tab: the Markdown export, to a file beside the session or to the clipboard
    _A("handoff.write", "handoff", "W", "write", "handoff", "Write file",
       "Write the handoff (Markdown) to <session>.handoff.md beside the session file", True),
    _A("handoff.copy", "handoff", "y", "copy", "handoff", "Copy",
       "Copy the handoff (Markdown) to the clipboard via OSC 52", True),
    # log pane (view state only; the live tail feeds it)
    _A("log.follow", "log", "f", "toggle_follow", "log", "Toggle follow", "Follow the end of the log, or pause", True),
    _A("log.search", "log", "slash", "search", "log", "Search", "Search the log", True, "/"),
    _A("log.filter", "log", "backslash", "filter", "log", "Filter", "Show only lines matching a pattern", True, "\\"),
    _A("log.errors-only", "log", "E", "toggle_errors", "log", "Errors only", "Show only error lines"),
    _A("log.hide-batches", "log", "b", "toggle_batches", "log", "Hide batch lines",
       "Hide or show the prefill/decode batch lines"),
    _A("log.polls", "log", "p", "toggle_polls", "log", "Show polls",
       "Show or hide the access lines of GET /metrics and /health polls (cockpit's own metrics feed, "
       "Prometheus, a health check): hidden by default, counted in the pane's title"),
    _A("log.next-match", "log", "n", "search_next", "log", "Next match",
       "Go to the next line matching the search (pauses follow)"),
    _A("log.prev-match", "log", "N", "search_previous", "log", "Previous match",
       "Go to the previous line matching the search (pauses follow)"),
    _A("log.clear-filter", "log", "c", "clear_filter", "log", "Clear filter",
       "Show every line again: filter, search and errors-only off"),
    _A("log.wrap", "log", "W", "toggle_wrap", "log", "Toggle wrap",
       "Wrap long lines onto the next rows, or cut them at the edge (saved with the view)"),
    _A("log.top", "log", "g", "top", "log", "Top", "Go to the first line (pauses follow)"),
    _A("log.bottom", "log", "G", "bottom", "log", "Bottom", "Go to the last line and follow again"),
    _A("log.half-left", "log", "left,h", "half_left", "log", "Half screen left",
       "Scroll left by half the pane's width"),
    _A("log.half-right", "log", "right,l", "half_right", "log", "Half screen right",
       "Scroll right by half the pane's width"),
    _A("log.record-bench", "log", "r", "record_bench", "log", "Record bench result",
       "Fill the benchmark form from the 'Serving Benchmark Result' block at or above the "
       "current match (or the bottom of the view), linked to the working profile"),
    # `cockpit log` alone (no session): bound on its app
    _A("logapp.help", "logapp", "question_mark", "help", "view", "Keys",
       "Show every key of the log pane", True, "?"),
    _A("logapp.quit", "logapp", "q", "quit", "session", "Quit", "Quit cockpit log", True),
    # compare screen (pushed over the main screen; its palette commands are offered there)
    _A("findings.accept", "findings", "a", "accept", "diagnosis", "Accept",
       "Accept the selected finding as a discovery (hypothesis, evidence attached)", True),
    _A("findings.dismiss", "findings", "x", "dismiss_finding", "diagnosis", "Dismiss",
       "Dismiss the selected finding: not proposed again for the same evidence", True),
    _A("findings.refresh", "findings", "r", "refresh", "diagnosis", "Read again",
       "Run the rules again over what the panes hold now", True),
    _A("findings.down", "findings", "j", "cursor(1)", "diagnosis", "Next finding", "Select the next finding"),
    _A("findings.up", "findings", "k", "cursor(-1)", "diagnosis", "Previous finding", "Select the previous finding"),
    _A("findings.close", "findings", "escape,q", "close", "diagnosis", "Close", "Back to the main screen",
       True, "esc"),
    _A("compare.next-a", "compare", "a", "step_a(1)", "compare", "Next A", "Compare the next launch profile as A", True),
    _A("compare.next-b", "compare", "b", "step_b(1)", "compare", "Next B", "Compare the next launch profile as B", True),
    _A("compare.swap", "compare", "x", "swap", "compare", "Swap", "Swap the two profiles", True),
    _A("compare.metric", "compare", "m", "next_metric", "compare", "Metric",
       "Compare the next figure: throughput, TTFT / ITL p50 and p99, power, tok/J", True),
    _A("compare.close", "compare", "escape,q", "close", "compare", "Close", "Back to the tab it was opened from",
       True, "esc"),
    # search view (pushed over the main screen, `Q`): the search over launch configurations
    _A("search.start", "search", "s", "start", "search", "Start search",
       "Run the shown search's trials (asks first with the space, the budget and a time estimate)", True),
    _A("search.pause", "search", "p", "pause", "search", "Pause search",
       "Start no new trial; the running ones finish", True),
    _A("search.resume", "search", "r", "resume", "search", "Resume search", "Start trials again after a pause", True),
    _A("search.stop", "search", "X", "stop", "search", "Stop search",
       "Stop the running trials and their servers (each is resumed at the next start)", True),
    _A("search.mark-best", "search", "m", "mark_best", "search", "Mark best working",
       "Mark the best configuration's launch profile as the working one", True),
    _A("search.pick", "search", "b", "pick", "search", "Pick front point",
       "Two objectives: adopt the highlighted trial's configuration, a point of the Pareto front, as the "
       "search's best (recorded as your choice)", True),
    _A("search.plot", "search", "v", "next_plot", "search", "Plot axis",
       "Plot the objective against output tok/J, or against TTFT p99"),
    _A("search.new", "search", "n", "new_search", "search", "New search",
       "A search: base profile, sweep, objective, constraints, budget and the space", True),
    _A("search.edit", "search", "e", "edit_search", "search", "Edit search", "Edit the shown search"),
    _A("search.next", "search", "right_square_bracket", "next_search(1)", "search", "Next search",
       "Show the session's next search", False, "]"),
    _A("search.close", "search", "escape,q", "close", "search", "Close", "Back to the tab it was opened from",
       True, "esc"),
    # fleet tab (hosts read through Prometheus)
    _A("fleet.cursor-up", "fleet", "up,k", "cursor(-1)", "fleet", "Previous host", "Select the host above"),
    _A("fleet.cursor-down", "fleet", "down,j", "cursor(1)", "fleet", "Next host", "Select the host below"),
    _A("fleet.focus-host", "fleet", "enter", "select_host", "fleet", "Focus host",
       "Show the selected host's log and GPU panes (a session host of that name)", True),
    _A("fleet.next-source", "fleet", "s", "next_source", "fleet", "Next source",
       "Show the next [[prometheus]] source of the session (only the shown one is queried)", True),
    # modal dialogs: bound on the dialog, not offered in the palette (they act on the dialog)
    _A("form.save", "form", "ctrl+s", "submit", "form", "Save", "Check the form and apply it", True),
    _A("form.cancel", "form", "escape", "cancel", "form", "Cancel", "Close the form without changes", True, "esc"),
    _A("quit.save", "quit", "s", "choose('save')", "quit", "Save and quit", "Save, then quit", True),
    _A("quit.discard", "quit", "d", "choose('discard')", "quit", "Quit without saving",
       "Quit and drop the unsaved edits", True),
    _A("quit.cancel", "quit", "escape", "choose(None)", "quit", "Cancel", "Stay in cockpit", True, "esc"),
    _A("confirm.run", "confirm", "y", "choose(True)", "confirm", "Run it", "Run what the dialog shows", True),
    _A("confirm.cancel", "confirm", "n,escape", "choose(False)", "confirm", "Don't run", "Close without running", True),
    _A("stop.yes", "stop", "y", "choose(True)", "stop", "Stop it", "Stop the server the dialog names", True),
    _A("stop.no", "stop", "n,escape", "choose(False)", "stop", "Keep it running",
       "Close; the server keeps running", True),
    _A("help.close", "help", "escape,q,question_mark", "close", "help", "Close", "Close the keys screen", True, "esc"),
    # (in the filter line j / k / g / G / q are typed; down or enter moves to the list)
    _A("help.down", "help", "j,down", "list_scroll(1)", "help", "Down", "Scroll the keys down a line", True, "j"),
    _A("help.up", "help", "k,up", "list_scroll(-1)", "help", "Up", "Scroll the keys up a line", True, "k"),
    _A("help.bottom", "help", "G,end", "list_end", "help", "Bottom", "Scroll to the last key", True, "G"),
    _A("help.top", "help", "g,home", "list_home", "help", "Top", "Scroll to the first key", True, "g"),
    _A("help.filter", "help", "slash", "filter", "help", "Filter", "Type to show only the keys that match", True, "/"),
    _A("detail.close", "detail", "escape,enter,q", "close", "detail", "Close", "Close the detail view", True, "esc"),
    _A("detail.edit", "detail", "e", "edit", "detail", "Edit", "Edit this record", True),
)

# Scopes that live on a modal dialog: bound there, and not palette commands.
MODAL_SCOPES = frozenset({"form", "quit", "help", "confirm", "stop", "detail", "failure"})
# Scopes of `cockpit log`'s app: its palette's, not the cockpit's.
LOG_APP_SCOPES = frozenset({"log", "logapp"})

# Scopes of a full screen pushed over the main one: their palette commands are offered
# (and run) only while that screen is up.
PUSHED_SCOPES = frozenset({"compare", "search", "findings"})

BY_ID = {spec.id: spec for spec in ACTIONS}


def bindings_for(scope: str) -> list[BindingType]:
    # BindingType: what Textual declares BINDINGS as (list is invariant).
    return [spec.binding() for spec in ACTIONS if spec.scope == scope]


def specs_for(scope: str) -> list[ActionSpec]:
    return [spec for spec in ACTIONS if spec.scope == scope]


FORBIDDEN_KEYS = frozenset({"ctrl+a", "ctrl+b"})
