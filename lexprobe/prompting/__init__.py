"""Prompting code of the choose method (ask-to-choose, beyond the papers' likelihood scoring).

``--method choose``: the item is put to a causal LM as a question with lettered/numbered
options, and the answer is read several ways: the likelihood of each option label after the
prompt (also averaged over the options' cyclic orders with ``--debias cyclic``), and greedy
generation parsed strictly and leniently. See ``docs/llm.md``. Modules: ``method``
(``ChooseMethod``: the one run loop and result of every benchmark's choose method),
``choice`` (one right option among k: orders, readings, debiasing), ``templates`` (prompt
text), ``options`` (candidate sampling and seeded option orders), ``parse`` (strict and
lenient answer parsers), ``debias`` (cyclic debiasing), ``choose`` (``ask``: the questions as
requests, ``core.requests``: a prompt fitted with room for its answer, a ``Continuation`` per label, a
``Generate`` per answer; readings' summaries, position bias),
``choose_cli`` (``ChooseOptions``), ``readings`` (the readings in schema-2 results). Nothing
here names a benchmark: each benchmark's ``ChooseMethod`` says what its units and questions
are (``benchmarks/wdlmpro/choose.py``, ``benchmarks/coda21/choose.py``, the toy in tests/).
"""
