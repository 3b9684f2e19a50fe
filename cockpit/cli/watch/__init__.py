"""Commands that read the live world: tail, log, parse-log, gpus/topo, metrics, fleet."""
