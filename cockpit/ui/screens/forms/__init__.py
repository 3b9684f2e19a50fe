"""Forms: the base, record forms, setup, sweep and search forms."""
