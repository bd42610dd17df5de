"""The commands of docs/llm.md, backends.md, report.md, ARCHITECTURE.md, human.md, scale.md and results.md, run as
a reader runs them (``tests/docs/__init__.py``)."""

from tests.docs.runner import snippet_test

test_snippet = snippet_test('docs/llm.md', 'docs/backends.md', 'docs/report.md', 'docs/ARCHITECTURE.md', 'docs/human.md',
                            'docs/scale.md', 'docs/results.md')
