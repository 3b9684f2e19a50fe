"""The action registry, the command palette, your own keymap."""
