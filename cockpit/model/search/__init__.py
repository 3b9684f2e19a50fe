"""A launch-space search: its record, space, scoring and edits."""
