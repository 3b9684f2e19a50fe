"""GPU power over time, the headroom, tokens per joule."""
