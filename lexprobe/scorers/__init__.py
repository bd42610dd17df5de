"""Scorers: one per kind of model (masked LM, causal LM, embeddings, random); ``base.Scorer`` is their face."""
