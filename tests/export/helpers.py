"""Small WDLMPro and CoDA21 items for the export tests, and lm-eval run on an exported task folder.

``run_lm_eval`` hands lm-eval the model a lexprobe scorer has loaded (``HFLM(pretrained=scorer.model, ...)``,
as tests/scorers/test_scale.py compares log-likelihoods), so both tools score the same weights; the items are
short enough (words of the tiny models' vocabulary) that no definition is cut and no context truncated.
``scripts/lm_eval_compare.py`` uses the same helpers on SmolLM2.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup, write_jsonl


def _group(pos: str, members: list[tuple[str, str]]) -> SynsetGroup:
    cands = tuple(Candidate(f"{w.replace(' ', '_')}.{pos}.01", w, d) for w, d in members)
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


#: target first; some words are several tokens for the tiny tokenizers ("beckon", "hand signal"), and two share
#: a first token ("sing", "singing"), where D2W's first-token score and lm-eval's whole-word score differ
SMALL_GROUPS = [
    _group("n", [("dog", "a small animal that barks"), ("cat", "a small animal that is light"),
                 ("water", "the light large one"), ("song", "a singing by one person"),
                 ("hand signal", "a signal made with the hand")]),
    _group("n", [("song", "a singing by one person"), ("dog", "a small animal that barks"),
                 ("light", "the act of light"), ("bow", "a large act of the person"), ("singing", "the act of singing")]),
    _group("v", [("nod", "to move the head"), ("wink", "to signal with one eye"), ("beckon", "to signal with the hand"),
                 ("sing", "to make a song"), ("bow", "to move the head and the body")]),
    _group("v", [("sing", "to make a song"), ("singing", "to act by singing"), ("move", "to act on one"),
                 ("wink", "to signal with one eye"), ("nod", "to move the head")]),
]


def write_small_wdlmpro(path: Path) -> Path:
    return write_jsonl(SMALL_GROUPS, path)


def _coda_group(relation: str, ancestor: str, members: list[tuple[str, str, str, str]]) -> dict:
    return {"common_ancestor_info": {"relation": relation, "ancestor_name": ancestor},
            "candidates": [{"synset_name": s, "definition": d, "contexts": [c], "words_in_contexts": [w]}
                           for s, d, c, w in members]}


#: official-format CoDA21 with short texts, and one malformed group (its target is not in its context)
SMALL_CODA = {
    "canary": "TEST CANARY: not for training",
    "n": [
        _coda_group("parent", "animal.n.01", [
            ("dog.n.01", "a small animal that barks", "the dog is a small one", "dog"),
            ("cat.n.01", "a small animal that is light", "the cat and the light", "cat"),
            ("song.n.01", "a singing by one person", "one song for the hand", "song")]),
        _coda_group("grandparent", "act.n.02", [
            ("nod.n.01", "the act of moving the head", "a nod of the head", "nod"),
            ("wink.n.01", "a signal with one eye", "a wink to the person", "wink"),
            ("bow.n.01", "a large act of the body", "a bow to the large one", "bow"),
            ("signal.n.01", "a move that means a thing", "the signal is light", "signal")]),
        _coda_group("parent", "thing.n.01", [
            ("water.n.01", "the light one", "water is it", "missing")]),
    ],
    "v": [
        _coda_group("parent", "move.v.01", [
            ("nod.v.01", "move the head", "they nod to the person", "nod"),
            ("sing.v.01", "make a song", "they sing a song", "sing"),
            ("wink.v.01", "signal with one eye", "they wink and move", "wink")]),
    ],
}


def write_small_coda(path: Path) -> Path:
    path.write_text(json.dumps(SMALL_CODA), encoding="utf-8")
    return path


def run_lm_eval(folder: Path, tasks: list[str], scorer=None, batch_size: int = 16, limit: int | None = None, lm=None):
    """(lm-eval's results, {task: {doc id: sample}}, seconds) of ``tasks`` of the exported ``folder``, lm-eval
    scoring with the model ``scorer`` holds (or with ``lm``, an lm-eval model loaded by lm-eval)."""
    import lm_eval
    from lm_eval.models.huggingface import HFLM
    from lm_eval.tasks import TaskManager

    if lm is None:
        lm = HFLM(pretrained=scorer.model, tokenizer=scorer.tokenizer, batch_size=batch_size, device=str(scorer.device))
    started = time.perf_counter()
    manager = TaskManager(include_path=str(folder), include_defaults=False)  # lm-eval's own tasks not indexed
    out = lm_eval.simple_evaluate(model=lm, tasks=tasks, task_manager=manager, limit=limit, log_samples=True,
                                  bootstrap_iters=0)
    seconds = time.perf_counter() - started
    samples = {task: {s["doc"]["id"]: s for s in rows} for task, rows in out["samples"].items()}
    return out["results"], samples, seconds


def lm_eval_scores(sample) -> list[float]:
    """A sample's log-likelihoods, in request order."""
    return [float(ll) for ll, _ in sample["filtered_resps"]]


def d2w_word_logprobs(scorer, groups) -> dict[tuple[str, str, str], np.ndarray]:
    """(pos, candidate word, target definition) -> the per-token log-probabilities of the whole word after the
    D2W context (paper recipe), through lexprobe's request layer: their sum is what lm-eval scores, their first
    value lexprobe's D2W score."""
    from lexprobe.benchmarks.wdlmpro.likelihood import Asker
    from lexprobe.benchmarks.wdlmpro.recipe import PAPER
    from lexprobe.asking.engine import Engine
    from lexprobe.asking.requests import Continuation

    asker = Asker(Continuation, PAPER)
    keys = sorted({(g.pos, c.word, g.definition) for g in groups for c in g.candidates})
    requests = [asker.continuation(PAPER.causal_patterns[("d2w", pos)], word, definition)
                for pos, word, definition in keys]
    return dict(zip(keys, Engine(scorer)(requests)))
