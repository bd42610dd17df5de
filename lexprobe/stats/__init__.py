"""Uncertainty of benchmark figures: bootstrap intervals and exact paired tests."""
