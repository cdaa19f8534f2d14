"""Learned agents on the Cogs vs Clips diagnostics: capability emergence over a run's checkpoints and
redundancy of the diagnostics from learned outcome data."""
