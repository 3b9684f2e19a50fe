"""The Fleet tab."""
