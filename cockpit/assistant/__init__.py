"""An AI assistant's way into a session: `cockpit mcp`, a Model Context Protocol server.

Beside `ui` under `cli`: it reads and edits a session file the way `cockpit add` does
(lock, load, one `SessionEditor` edit, save), never imports Textual and never runs a
command on a host.
"""
