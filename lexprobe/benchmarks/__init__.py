"""Benchmarks: one package each (data building, instances, evaluation, CLI)."""
