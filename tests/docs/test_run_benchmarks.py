"""The commands of docs/wsd.md, docs/wic.md, docs/wdlmpro.md, docs/coda21.md, docs/senserank.md, docs/interop.md, docs/data.md, run as a reader runs them (``tests/docs/__init__.py``)."""

from tests.docs.runner import snippet_test

test_snippet = snippet_test('docs/wsd.md', 'docs/wic.md', 'docs/wdlmpro.md', 'docs/coda21.md', 'docs/senserank.md', 'docs/interop.md', 'docs/data.md')
