"""Getting there: SSH pool and targets, host keys, HTTP over any stream, remote commands, the one Python child."""
