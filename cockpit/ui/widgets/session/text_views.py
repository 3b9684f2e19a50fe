"""Read-mostly tabs rendered from the session: last action, handoff."""

from __future__ import annotations

import re
import string
import threading
from collections.abc import Callable

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from cockpit.model.session import Session
from cockpit.model.timeline import drops, timeline
from cockpit.ui import messages as msg
from cockpit.ui.focus_now import focus_now
from cockpit.ui.keys.actions import bindings_for
from cockpit.ui.safe_text import safe
from cockpit.ui.widgets.chrome.long_text import LongText, Wrapped
from cockpit.ui.widgets.session.banner import when_text
from cockpit.ui.widgets.session.restorable import Restorable

Parts = list[str | tuple[str, str]]


class TextView(Restorable, VerticalScroll, can_focus=True):
    """A scrollable text tab; its scroll offset is saved like a list's, and it takes a list's
    j / k / g / G (a line, the ends: `G` on the Handoff said "does nothing")."""

    BINDINGS = [b for b in bindings_for("list") if not isinstance(b, tuple) and b.action != "list_open"]

    def __init__(self, state_key: str, *, id: str | None = None, body: type[Static] = Static) -> None:
        super().__init__(id=id)
        self.state_key = state_key
        self._body = body

    def compose(self) -> ComposeResult:
        yield self._body("", classes="text-body")

    def selected_id(self) -> str | None:
        return None

    def select_id(self, ident: str) -> bool:
        return False

    def focus_view(self) -> None:
        focus_now(self)

    def action_list_step(self, step: int) -> None:
        self.scroll_down() if step > 0 else self.scroll_up()

    def action_list_end(self, step: int) -> None:
        self.scroll_end() if step > 0 else self.scroll_home()

    def put(self, content: Content) -> None:
        self.query_one(".text-body", Static).update(content)


TIMELINE_ROWS = 60
FIRST_FRAME_WAIT_S = 0.05
"""How long showing the Handoff tab waits for its document before it shows "making…" (made,
turned into screen text and wrapped in its thread: ~17 ms for a 600-line handoff on a quiet
2-core machine, ~40 ms under load; a 5,000-item session's takes longer and shows when made)."""


class LastActionView(TextView):
    def show(self, session: Session) -> None:
        last = session.last_action
        parts: Parts = [("Last action", "bold underline $primary"), "\n"]
        if last is None:
            parts.append(("nothing recorded yet: L sets it", "$foreground-muted"))
        else:
            parts += [(when_text(last), "$foreground-muted"), "\n", (safe(last.text), "bold")]
            parts += ["\n\n", ("Next step", "bold"), "\n", safe(last.next_step) or ("—", "$foreground-muted")]
            parts += ["\n\n", ("Fallback", "bold"), "\n", safe(last.fallback) or ("—", "$foreground-muted")]
            if last.activity is not None:
                parts += ["\n\n", ("Since then (automatic)", "bold"), "\n", safe(last.activity.text)]
                if last.activity.next_step:
                    parts += ["\n", ("suggests ", "$foreground-muted"), safe(last.activity.next_step)]
        if session.last_actions:
            parts += ["\n\n", ("Earlier actions (newest first; u undoes the last change)", "bold"), "\n"]
            for earlier in reversed(session.last_actions[-5:]):
                parts += [(f"{when_text(earlier)} ", "$foreground-muted"), safe(earlier.text), "\n"]
        parts += ["\n\n", ("Timeline (newest first)", "bold underline $primary"), "\n",
                  ("edits and benchmarks; ▼ marks a run below the best earlier point (a median) of its workload",
                   "$foreground-muted")]
        found = {d.bench.id: d for d in drops(session)}
        entries = timeline(session)[-TIMELINE_ROWS:]
        for e in reversed(entries):
            drop = found.get(e.ref or "") if e.kind == "benchmark" else None
            parts += ["\n", (e.when.strftime("%m-%d %H:%M "), "$foreground-muted"),
                      (f"{safe(e.kind):<18} ", "$error" if drop else "$accent"), safe(e.text)]
            if drop is not None:
                parts += ["\n", (f"{'▼':>13} {drop.fraction:.1%} below {drop.reference()}; changed since "
                                  f"{drop.previous.id}:", "bold $error")]
                lines = [f"{c.kind}: {c.text}" for c in drop.changes] + list(drop.profile_changes)
                parts += [x for line in lines or ["(nothing recorded)"] for x in ("\n", " " * 15 + safe(line))]
        if not entries:
            parts += ["\n", ("nothing dated yet: edits are journaled as you make them", "$foreground-muted")]
        self.put(Content.assemble(*parts))


class HandoffView(TextView):
    """The Markdown handoff document, shown as its text with the headings marked; refreshed
    only when its tab is shown. `W` writes it beside the session file, `y` copies it (the
    main screen does both).

    The document is made in a thread (`render_from`) and shown as one Static: Textual's
    Markdown widget mounted a block per paragraph and table, 3-16 s for a 48-benchmark
    campaign, during which no key was answered (issue 39; benchmarks/bench_handoff.py)."""

    BINDINGS = bindings_for("handoff")

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("handoff", id=id, body=LongText)
        self._source = ""
        self._generation = 0
        self.shown_whole = False
        """The latest document asked for is on the tab (tests and the benchmark wait on it)."""

    def render_from(self, session: Session, make_text: Callable[[Session], str]) -> None:
        """`make_text(session)` (the screen's: store/handoff/markdown.py) off the UI thread, then
        show it (the newest ask wins). The UI thread waits for it at most `FIRST_FRAME_WAIT_S`,
        so a document made that soon is in the tab's first frame: the tab is laid out and
        drawn once, not once with "making the handoff…" and again with the text (issue 39: the
        key after `0`); a longer one (a 5,000-item session) shows when it is made."""
        self._generation += 1
        self.shown_whole = False
        generation, made, app = self._generation, threading.Event(), self.app
        result: list[tuple[str, Content, Wrapped]] = []
        wrap = self._body_widget().wrapper(self._text_width())

        def make() -> None:
            try:
                text = make_text(session)
                content = markdown_text(text)  # (Content is immutable: made and wrapped here too)
                result.append((text, content, wrap(content)))
            except Exception as error:  # noqa: BLE001  # shown on the tab, not a thread's traceback
                failure = f"The handoff could not be made: {type(error).__name__}: {error}"
                made.set()
                _from_thread(app, self._failed, generation, failure)
                return
            made.set()
            _from_thread(app, self._shown, generation, *result[0])

        # A plain daemon thread: a Textual thread worker starts only once this handler has
        # returned, so it could not be waited for here (an app that closes meanwhile loses
        # nothing but this document).
        threading.Thread(target=make, name="handoff render", daemon=True).start()
        if made.wait(FIRST_FRAME_WAIT_S) and result:
            self.show(*result[0])
        elif not self._source:
            self.put(Content.styled("making the handoff…", "$foreground-muted"))

    def _body_widget(self) -> LongText:
        return self.query_one(".text-body", LongText)

    def _text_width(self) -> int:
        """The width the text is wrapped at: the body's, or before its first layout the
        tabs' less this view's padding and scrollbar (a wrong guess is wrapped again)."""
        body = self._body_widget()
        if body.size.width:
            return body.size.width
        outer = self.parent.size.width if isinstance(self.parent, Widget) else self.app.size.width
        return max(1, outer - self.styles.gutter.width - self.styles.scrollbar_size_vertical)

    def _failed(self, generation: int, text: str, *_made: None) -> None:
        if generation == self._generation:
            self._source = ""
            self.put(Content.styled(safe(text), "$error"))
            self.shown_whole = True

    def _shown(self, generation: int, text: str, content: Content, wrapped: Wrapped) -> None:
        if generation == self._generation:
            self.show(text, content, wrapped)

    def show(self, text: str, content: Content | None = None, wrapped: Wrapped | None = None) -> None:
        """Show the handoff's Markdown (store/handoff/markdown.py makes it); `content`: the
        text as `markdown_text` shows it and `wrapped`, it wrapped, when made already."""
        if text != self._source:
            self._source = text
            if content is None:
                content, wrapped = markdown_text(text), None
            self._body_widget().update(content, wrapped=wrapped)
        self.shown_whole = True

    def action_write(self) -> None:
        self.post_message(msg.HandoffWriteRequested())

    def action_copy(self) -> None:
        self.post_message(msg.HandoffCopyRequested())


def _from_thread(app: App[object], callback: Callable[..., None], generation: int, *made: object) -> None:
    """`callback(generation, *made)` on the UI thread, unless the app has closed meanwhile."""
    try:
        app.call_from_thread(callback, generation, *made)
    except RuntimeError:  # the app is no longer running
        pass


def markdown_text(text: str) -> Content:
    """Markdown as a terminal shows it well: the text itself (what `W` writes, tables aligned
    as written), headings bold in the theme's colour, the data as its author wrote it (the
    escapes store/handoff/markdown.py puts before `[`, `]`, `|`, `#`, ... undone, `&lt;` read as
    `<`, as a Markdown reader shows them; code spans and fences kept literal); every line
    through the sanitizer and quoted (no markup)."""
    parts: Parts = []
    fence = ""
    for line in text.splitlines():
        if fence:  # a fence's body is literal; it ends at a run of its character at least as long
            if line.strip() and line.strip().startswith(fence) and set(line.strip()) == {fence[0]}:
                fence = ""
            parts += [safe(line), "\n"]
        elif opened := _FENCE.match(line):
            fence = opened[1]
            parts += [safe(line), "\n"]
        elif line.startswith("#"):
            heading = _unescaped(line.lstrip("#").strip(), in_table=False)
            parts += [(safe(heading), "bold $primary" if line.startswith("# ") else "bold"), "\n"]
        else:
            parts += [safe(_unescaped(line, in_table=line.startswith("|"))), "\n"]
    return Content.assemble(*parts)


_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_BACKQUOTES = re.compile(r"`+")
# What a Markdown reader does not show as written: a backslash escape (before ASCII
# punctuation), a code span's opening backquotes, the `&lt;` handoff/markdown.py writes for `<`.
_SPECIAL = re.compile("\\\\([" + re.escape(string.punctuation) + "])|(`+)|&lt;")


def _unescaped(line: str, *, in_table: bool) -> str:
    """One Markdown line's text as a reader shows it: a backslash before ASCII punctuation
    and `&lt;` undone outside code spans; a code span (its backquotes kept) literal, but for
    the `\\|` a table cell needs inside one (GFM)."""
    out: list[str] = []
    i = 0
    while (found := _SPECIAL.search(line, i)) is not None:
        out.append(line[i:found.start()])
        i = found.start()
        if found[1] is not None:  # an escaped punctuation character
            out.append(found[1])
            i = found.end()
        elif found[2] is not None:  # a code span, if a run of as many backquotes closes it
            run = found[2]
            close = next((m for m in _BACKQUOTES.finditer(line, found.end()) if len(m.group()) == len(run)), None)
            if close is None:  # none does: the backquotes are text
                out.append(run)
                i = found.end()
            else:
                span = line[i:close.end()]
                out.append(span.replace("\\|", "|") if in_table else span)
                i = close.end()
        else:
            out.append("<")
            i = found.end()
    out.append(line[i:])
    return "".join(out)
