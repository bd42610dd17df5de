"""Human baselines: a local web page where people take the same items the models get.

``store`` keeps item sets and answers in SQLite as each answer is given, ``server`` serves the page and
validates every answer, ``cli`` is ``lexprobe human serve|score``. What a benchmark builds its item set and
a person's result with is generic and sits below the benchmarks: ``core.human_items`` turns a benchmark
subset into an item set (with its answer key), ``core.human_score`` turns stored answers into result files
that ``lexprobe report`` and ``lexprobe compare`` read like any model's.
"""
