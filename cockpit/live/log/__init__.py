"""A log parsed once and folded once (in a child process), its items and metrics."""
