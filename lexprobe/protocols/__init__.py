"""Protocols beyond the papers' likelihood scoring.

``choose`` (``--protocol choose``): the item is put to a causal LM as a question
with lettered/numbered options, and the answer is read two ways: the likelihood of
each option label after the prompt, and greedy generation parsed strictly. See
``docs/llm.md``. Modules: ``templates`` (prompt text), ``options`` (candidate
sampling and seeded option orders), ``parse`` (strict answer parser), ``answers``
(label likelihood and generation on a causal scorer), ``choose_wdlmpro`` and
``choose_coda`` (the two benchmarks), ``choose_cli`` (CLI options).
"""
