"""The server /metrics pane."""
