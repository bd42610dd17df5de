"""A benchmark of the pair task type, written as a user would: items and phrasing, nothing else (``benchmark.py``,
its data ``pairs.jsonl``). ``SAMESENSE`` is registered by the tests that use it."""

from tests.samesense.benchmark import SAMESENSE

__all__ = ["SAMESENSE"]
