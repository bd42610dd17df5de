"""Human baselines: a local web page where people take the same items the models get.

``items`` turns a benchmark subset into an item set (with its answer key), ``store``
keeps item sets and answers in SQLite as each answer is given, ``server`` serves the
page and validates every answer, ``score`` turns stored answers into result files
that ``lexprobe report`` and ``lexprobe compare`` read like any model's.
"""
