"""Launches and sweeps: lifecycle, server runs, the sweep plan, runner, watch."""
