"""The fleet through Prometheus, and the session's Prometheus sources."""
