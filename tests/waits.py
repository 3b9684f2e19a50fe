"""How long a test waits for something that should happen soon.

A wait polls its condition and returns the moment it holds, so a long deadline costs a
passing test nothing; a short one only turns a loaded machine into a failure (the suite
runs on 2 shared cores with 3 workers, and a fresh clone's run ended with waits of 3-10 s
that ran out). Every condition wait gets at least PATIENCE_S.
"""

PATIENCE_S = 60.0


def patience(timeout: float) -> float:
    """The deadline a wait actually uses: what the test asked, or PATIENCE_S if that is longer."""
    return max(timeout, PATIENCE_S)
