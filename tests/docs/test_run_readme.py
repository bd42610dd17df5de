"""The commands of README.md, run as a reader runs them (``tests/docs/__init__.py``)."""

from tests.docs.runner import snippet_test

test_snippet = snippet_test('README.md')
