"""Tabs rendered from the session: tasks, discoveries, benchmarks + chart, profiles, records, setup, banner, targets."""
