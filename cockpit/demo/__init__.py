"""`cockpit --demo`: the example session fed by replays of recorded logs, GPUs, /metrics and PromQL."""
