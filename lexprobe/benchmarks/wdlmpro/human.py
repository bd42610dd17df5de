"""The paper's human subset (docs/wdlmpro.md, "Human subset"): for each task, n groups with at most k candidates,
as printable sheets (``wdlmpro sample-human``) and as the item set of ``lexprobe human serve``.

The W2D and D2W samples are drawn independently (seeds derived from ``seed`` and the task) and each item's
options shuffled with a seeded generator, so the same seed gives the same sheets. ``write_human_sample``
writes the JSON (answers included), the printable sheet, the answer key apart from it, and each task's groups
as JSONL, so a model can be evaluated on exactly the same subset (``--data`` of ``eval``).

People pick one option per question, so their results carry P@1 (rank score needs a full ranking: ``None``,
never guessed), one file per task (the W2D and D2W subsets are different groups).
"""

from __future__ import annotations

import json
import random
import string
import textwrap
from pathlib import Path
from typing import Any, Sequence

from lexprobe.benchmarks.wdlmpro.dataset import SynsetGroup, read_groups, sample_groups, write_jsonl
from lexprobe.cache import stable_hash
from lexprobe.core.human_items import groups_digest, make_item_set
from lexprobe.core.human_score import person_result, who
from lexprobe.errors import DataError

TASKS = ("w2d", "d2w")
INSTRUCTIONS = {
    "w2d": "Rank the definitions from the one that best defines the word (1) to the worst.",
    "d2w": "Rank the words from the one the definition best defines (1) to the worst.",
}
#: what ``write_human_sample`` writes into its folder, by kind
FILES = {"json": "human_sample.json", "sheet": "human_sheet.txt", "answer_key": "human_answer_key.txt",
         **{f"{task}_groups": f"human_{task}.jsonl" for task in TASKS}}
#: the paper's human subset: 20 groups per task with at most 10 candidates
PAPER_SUBSET = {"n": 20, "max_candidates": 10}


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
    from lexprobe.outputs import write_atomic

    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {kind: out_dir / name for kind, name in FILES.items()}
    for task in TASKS:
        write_jsonl(sample[task]["groups"], paths[f"{task}_groups"])
    serialisable = {"config": sample["config"], **{task: sample[task]["items"] for task in TASKS}}
    write_atomic(paths["json"], json.dumps(serialisable, ensure_ascii=False, indent=1) + "\n")
    write_atomic(paths["sheet"], format_sheet(sample))
    write_atomic(paths["answer_key"], format_answer_key(sample))
    return paths


# ---------------------------------------------------------------- lexprobe human


def item_set(args: Any) -> dict:
    """``HumanItems.item_set``: a ``choice`` item per sheet question of ``sample_human`` (the same sheets as on
    paper), from the options of ``lexprobe human`` (the paper's subset by default)."""
    n = PAPER_SUBSET["n"] if args.subset == "paper" else args.subset
    sample = sample_human(read_groups(args.data, args.pos or "both"), n=n, max_candidates=args.max_candidates,
                          seed=0 if args.seed is None else args.seed)
    items, digests = [], {}
    for task in TASKS:
        digests[task] = groups_digest(sample[task]["groups"])
        for group, item in zip(sample[task]["groups"], sample[task]["items"]):
            items.append({
                "id": f"{task}/{item['item']}",
                "kind": "choice",
                "task": task,
                "pos": group.pos,
                "prompt": item["prompt"],
                "options": [{"label": o["label"], "text": o["text"], "synset": o["synset"]} for o in item["options"]],
                "answer": item["answer"],
                "target": group.target,
                "word": group.word,
            })
    return make_item_set("wdlmpro", str(args.subset), 0 if args.seed is None else args.seed, items, digests)


def _choice_record(item: dict, answer: str) -> dict:
    chosen = next(o for o in item["options"] if o["label"] == answer)
    correct = answer == item["answer"]
    return {
        "task": item["task"], "target": item["target"], "pos": item["pos"], "word": item["word"],
        "n_candidates": len(item["options"]), "gold_rank": 1 if correct else None, "correct": correct,
        "rank_score": None, "predicted": chosen["synset"],
    }


def results(bench: Any, item_set: dict, answers: dict[str, dict[str, Any]]) -> dict[str, dict]:
    """``HumanItems.results``: {<task>-<participant>: result}, one participant's (or the pooled) answers on one
    task's subset scored as a model's run (P@1 and the random baseline per POS slice)."""
    tasks = [t for t in TASKS if any(it["task"] == t for it in item_set["items"])]
    return {f"{t}-{p}": person_result(bench, item_set, answers, p, t, _choice_record, {"task": t})
            for t in tasks for p in who(answers)}
