"""Protocols beyond the papers' likelihood scoring.

``choose`` (``--method choose``): the item is put to a causal LM as a question
with lettered/numbered options, and the answer is read several ways: the likelihood of
each option label after the prompt (also averaged over the options' cyclic orders with
``--debias cyclic``), and greedy generation parsed strictly and leniently. See
``docs/llm.md``. Modules: ``templates`` (prompt text), ``options`` (candidate
sampling and seeded option orders), ``parse`` (strict and lenient answer parsers),
``answers`` (label likelihood and generation on a causal scorer), ``debias`` (cyclic
debiasing), ``choose`` (readings, position bias, resumable runs), ``choose_cli`` (``ChooseOptions``),
``readings`` (the readings in schema-2 results). Nothing here knows a benchmark: each
benchmark's questions are its own ``choose`` module (``benchmarks/wdlmpro/choose.py``,
``benchmarks/coda21/choose.py``).
"""
