"""Prompting code of the choose method (ask-to-choose, beyond the papers' likelihood scoring).

``--method choose`` puts the item to a causal LM as a question with lettered or numbered options and reads
the answer several ways (label likelihood, cyclic debiasing, greedy generation parsed strictly and
leniently; docs/llm.md). ``method.ChooseMethod`` is the one run loop of every benchmark's choose method;
nothing here names a benchmark.
"""
