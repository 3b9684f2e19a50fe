"""A server's /metrics folded into what the metrics pane shows, and its series."""
