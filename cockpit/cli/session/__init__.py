"""Commands on a session file: check/fmt/export/add, new, diff, drift, timeline."""
