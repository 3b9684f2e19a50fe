"""Commands that run things: run / stop a launch profile, sweep."""
