"""The paper's human subset (docs/wdlmpro.md, "Human subset"): for each task, n groups with at most k candidates.

The W2D and D2W samples are drawn independently (seeds derived from ``seed`` and the task) and each item's
options shuffled with a seeded generator, so the same seed gives the same sheets. ``write_human_sample``
writes the JSON (answers included), the printable sheet, the answer key apart from it, and each task's groups
as JSONL, so a model can be evaluated on exactly the same subset (``--data`` of ``eval``).
"""

from __future__ import annotations

import json
import random
import string
import textwrap
from pathlib import Path
from typing import Sequence

from lexprobe.benchmarks.wdlmpro.dataset import SynsetGroup, sample_groups, write_jsonl
from lexprobe.cache import stable_hash
from lexprobe.errors import DataError

TASKS = ("w2d", "d2w")
INSTRUCTIONS = {
    "w2d": "Rank the definitions from the one that best defines the word (1) to the worst.",
    "d2w": "Rank the words from the one the definition best defines (1) to the worst.",
}


def _task_seed(seed: int, task: str) -> int:
    return int(stable_hash([seed, task], length=8), 16)


def _item(group: SynsetGroup, task: str, number: int, rng: random.Random) -> dict:
    order = list(range(group.size))
    rng.shuffle(order)
    cands = [group.candidates[ci] for ci in order]
    options = [{"label": string.ascii_lowercase[i], "synset": c.synset,
                "text": c.definition if task == "w2d" else c.word} for i, c in enumerate(cands)]
    prompt = group.word if task == "w2d" else group.definition
    return {"item": number, "target": group.target, "pos": group.pos, "prompt": prompt, "options": options,
            "answer": options[order.index(0)]["label"]}


def sample_human(groups: Sequence[SynsetGroup], n: int = 20, max_candidates: int = 10, seed: int = 0) -> dict:
    """Return {"config": ..., "w2d": {"groups": [...], "items": [...]}, "d2w": {...}}."""
    if max_candidates is not None and max_candidates > len(string.ascii_lowercase):
        raise DataError(f"--max-candidates must be at most {len(string.ascii_lowercase)} for a printable sheet")
    pool = [g for g in groups if max_candidates is None or g.size <= max_candidates]
    if len(pool) < n:
        raise DataError(f"only {len(pool)} groups have at most {max_candidates} candidates, fewer than the {n} "
                        "requested; lower --n or raise --max-candidates")
    sample: dict = {"config": {"n": n, "max_candidates": max_candidates, "seed": seed}}
    for task in TASKS:
        chosen = sample_groups(pool, n, seed=_task_seed(seed, task))
        rng = random.Random(_task_seed(seed, task + "/options"))
        items = [_item(g, task, i + 1, rng) for i, g in enumerate(chosen)]
        sample[task] = {"groups": chosen, "items": items}
    return sample


def format_sheet(sample: dict) -> str:
    """Printable plain text: per task, the prompt and its lettered options with a blank to rank."""
    out = []
    wrap = textwrap.TextWrapper(width=88, subsequent_indent=" " * 12)
    for task in TASKS:
        title = "Word to definition (W2D)" if task == "w2d" else "Definition to word (D2W)"
        out += [title, "=" * len(title), INSTRUCTIONS[task], ""]
        for item in sample[task]["items"]:
            kind = "Word" if task == "w2d" else "Definition"
            out.append(f"{item['item']:>2}. {kind}: {item['prompt']}")
            for opt in item["options"]:
                out.append(wrap.fill(f"    ___ ({opt['label']}) {opt['text']}"))
            out.append("")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def format_answer_key(sample: dict) -> str:
    out = []
    for task in TASKS:
        out.append(f"{task.upper()} answer key")
        for item in sample[task]["items"]:
            out.append(f"{item['item']:>2}. ({item['answer']})  {item['target']}")
        out.append("")
    return "\n".join(out)


def write_human_sample(sample: dict, out_dir: str | Path) -> dict[str, Path]:
    """Write the JSON, the sheet, the answer key and the per-task JSONL; return their paths."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {"json": out_dir / "human_sample.json", "sheet": out_dir / "human_sheet.txt",
             "answer_key": out_dir / "human_answer_key.txt"}
    serialisable = {"config": sample["config"]}
    for task in TASKS:
        serialisable[task] = sample[task]["items"]
        paths[f"{task}_groups"] = write_jsonl(sample[task]["groups"], out_dir / f"human_{task}.jsonl")
    from lexprobe.outputs import write_atomic

    write_atomic(paths["json"], json.dumps(serialisable, ensure_ascii=False, indent=1) + "\n")
    write_atomic(paths["sheet"], format_sheet(sample))
    write_atomic(paths["answer_key"], format_answer_key(sample))
    return paths
