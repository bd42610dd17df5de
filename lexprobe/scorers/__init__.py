"""Scorers: one per kind of model (masked LM, causal LM, embeddings, random)."""

from lexprobe.scorers.base import Scorer

__all__ = ["Scorer"]
