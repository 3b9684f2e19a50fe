"""Bench_serving's result block and its JSONL records."""
