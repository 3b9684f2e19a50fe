"""What the app follows: the live routes, experiment and search runs, the findings watch."""
