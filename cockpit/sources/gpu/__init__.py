"""GPUs: NVML locally, one nvidia-smi stream per remote host, the GPU feeds."""
