"""SGLang log lines -> events, patterns, error labels, the parse-log summary engines."""
