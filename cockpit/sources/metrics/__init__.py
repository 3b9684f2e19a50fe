"""`/metrics` scrapes and PromQL over Prometheus's HTTP API."""
