"""The feeds the app runs live in `cockpit.sources.feeds` (no Textual there)."""

from cockpit.sources.feeds import LiveFeed, LiveSources

__all__ = ["LiveFeed", "LiveSources"]
