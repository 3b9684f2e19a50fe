"""cockpit: one terminal screen for a long SGLang tuning campaign."""

__version__ = "0.1.0"
