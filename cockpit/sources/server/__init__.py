"""The SGLang server on its host: start/stop/find, the version probe, drift, the confirmation key."""
