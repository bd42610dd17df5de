"""Metrics: ranking (WDLMPro), alignment (CoDA21), retrieval (sense ranking)."""
