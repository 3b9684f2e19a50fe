"""Prometheus exposition text, histograms, SGLang's /metrics, scrape events."""
