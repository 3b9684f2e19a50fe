"""Benchmarks as numbers: targets scored, chart series, profile compare and diff."""
