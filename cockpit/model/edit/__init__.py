"""Changing a session: the editor + undo, journal words, lookup, three-way merge."""
