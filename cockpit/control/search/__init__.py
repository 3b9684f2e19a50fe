"""The search over launch configurations: the optimizer (Optuna, ask / tell, rebuilt from the
session's trials at every start), the loop that runs trials on the session's hosts, and the
TrialRunner that starts, sweeps and stops one trial. No Textual here."""
