"""Exports of the benchmarks to where researchers already work: Hugging Face dataset folders (``hf.py``) and
lm-evaluation-harness tasks (``lm_eval.py``), one declaration per benchmark (``wdlmpro.py``, ``coda21.py``,
listed in ``registry.py``); and lexprobe's result files as pandas DataFrames (``frames.py``). docs/interop.md."""
