"""Launches and sweeps as folds and plans: lifecycle, server runs, the sweep plan, its watch and records."""
