"""The main screen: its panes, view state and the intent handlers."""
