"""Ground every room may use: the one sanitizer of untrusted text, secret redaction."""
