"""Benchmarks: scripts that print figures, each with its baseline measured in the same run."""
