"""lexprobe result files as a pandas DataFrame of their per-item records, for people's own analysis.

``results_frame("gpt2.json", "rb.json")``: one row per record of each file's ``instances`` (a WDLMPro
(target, task), a CoDA21 group, a sense-ranking query, a choose question), the records' fields as columns
(nested objects flattened with ``pandas.json_normalize``: ``patterns``, ``scores`` and other lists stay
lists in one cell), and columns saying where a row comes from: ``file``, ``benchmark``, ``model``,
``method``, ``recipe`` (``result_<name>`` where a record has a field of that name). Files are read through ``result_schema.load`` (checked; a schema-1 file refused in one line), so
a damaged file is one error, not a frame with holes. pandas is not a dependency of lexprobe
(``pip install -r requirements-bench.txt`` installs it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lexprobe.errors import LexprobeError


def results_frame(*paths: str | Path) -> Any:
    """The ``instances`` of the result files ``paths`` as one DataFrame (see the module docstring)."""
    try:
        import pandas as pd
    except ImportError:
        raise LexprobeError("results_frame needs pandas: pip install pandas (or pip install -r "
                            "requirements-bench.txt)") from None
    from lexprobe.core.result_schema import load, model_name

    if not paths:
        raise LexprobeError("results_frame needs at least one result file")
    frames = []
    for path in paths:
        result = load(path)
        records = pd.json_normalize(result.get("instances") or [], max_level=1)
        source = {"file": str(path), "benchmark": result["benchmark"], "model": model_name(result),
                  "method": result["method"], "recipe": result["recipe"]}
        for i, (column, value) in enumerate(source.items()):  # a record's own field of that name keeps its name
            records.insert(i, column if column not in records else f"result_{column}", value)
        frames.append(records)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
