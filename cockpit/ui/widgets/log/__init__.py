"""The log pane: its ring buffer, line view, metrics strip."""
