"""GPU text -> samples: nvidia-smi CSV, topo -m, dcgm-exporter, GPU event types."""
