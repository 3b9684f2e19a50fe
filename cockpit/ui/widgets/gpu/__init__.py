"""The GPU and topology panes."""
