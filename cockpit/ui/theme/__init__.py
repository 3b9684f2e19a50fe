"""Colour themes: files, roles, Textual themes."""
