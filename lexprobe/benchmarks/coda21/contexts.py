"""Contexts of synsets for the CoDA21 builder: collect them from SemCor, pick one.

The paper takes the SemCor sentence in which bert-base-uncased gives the masked target word the highest
log-probability, averaging the probabilities of a word's pieces (footnote 4): ``MaskedContextSelector``, with any
masked LM (``average="log"``: the mean log-probability instead). The authors' scorer for this step is not
released, so both recipes follow the footnote. ``FirstContextSelector`` (the first sentence in corpus order) is
the model-free fallback of ``lexprobe run``'s small set.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate
from typing import Any, Callable, Iterable, Sequence

import numpy as np

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Occurrence:
    """A sentence in which a synset occurs, and where its word is (character span)."""

    context: str
    word: str
    start: int

    @property
    def end(self) -> int:
        return self.start + len(self.word)


def synset_of_key(wn, key: str) -> str | None:
    try:
        return wn.lemma_from_key(key).synset().name()
    except Exception:  # noqa: BLE001 - keys missing from this WordNet are skipped
        return None


def collect_contexts(sentences: Iterable[Any], wn, pos: Sequence[str] = ("n", "v")) -> dict[str, list[Occurrence]]:
    """Synset name -> its distinct SemCor sentences (first occurrence per sentence), from sentences with
    ``.tokens`` and ``.annotations`` (``.index``, ``.sense_key``), as ``data.semcor.iter_semcor_sentences``
    yields them; underscores joining a multi-word token become spaces."""
    contexts: dict[str, list[Occurrence]] = defaultdict(list)
    synset = lru_cache(maxsize=None)(lambda key: synset_of_key(wn, key))
    for sent in sentences:
        tokens = [t.replace("_", " ") for t in sent.tokens]
        text = " ".join(tokens)
        starts = [0, *accumulate(len(t) + 1 for t in tokens[:-1])]
        seen_here: set[str] = set()
        for ann in sent.annotations:
            name = synset(ann.sense_key)
            if name is None or name.split(".")[-2] not in pos or name in seen_here:
                continue
            if not 0 <= ann.index < len(tokens) or not tokens[ann.index].strip():
                continue
            seen_here.add(name)
            contexts[name].append(Occurrence(text, tokens[ann.index], starts[ann.index]))
    return dict(contexts)


class FirstContextSelector:
    """The first context in corpus order; no model needed."""

    name = "first"

    def select(self, candidates: dict[str, list[Occurrence]]) -> dict[str, Occurrence]:
        return {s: occ[0] for s, occ in candidates.items() if occ}


class MaskedContextSelector:
    """The context where a masked LM predicts the (fully masked) target word best; ties go to the earlier one.
    ``scorer``: MaskedLMScorer-like (``.model``, a fast ``.tokenizer`` with offsets, ``.device``, ``.batch_size``)."""

    name = "masked-lm"

    def __init__(self, scorer: Any, progress: Callable[[int], None] | None = None, average: str = "prob"):
        if average not in ("log", "prob"):
            raise ValueError(f"unknown average {average!r}; use log or prob")
        self.scorer, self.progress, self.average = scorer, progress, average

    def target_logprobs(self, occurrences: Sequence[Occurrence]) -> np.ndarray:
        """Log of the mean probability (``average="log"``: the mean log-probability) of the
        target's tokens, all masked at once, per occurrence."""
        import torch

        from lexprobe.batching import pad_batch, run_batched
        from lexprobe.scorers.base import max_input_length
        from lexprobe.scorers.encoder_tail import scored_logits

        tok = self.scorer.tokenizer
        max_len = max_input_length(self.scorer)
        items = []
        for occ in occurrences:
            enc = tok(occ.context, return_offsets_mapping=True, truncation=True, max_length=max_len)
            target = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if b > a and a < occ.end and b > occ.start]
            items.append((list(enc["input_ids"]), target))
        model, device = self.scorer.model, self.scorer.device

        def forward(batch):
            input_ids, attention = pad_batch([ids for ids, _ in batch], tok.pad_token_id or 0)
            for row, (_, target) in enumerate(batch):
                input_ids[row, list(target)] = tok.mask_token_id
            rows = [row for row, (_, target) in enumerate(batch) for _ in target]
            cols = [t for _, target in batch for t in target]
            if not cols:
                return [float("-inf")] * len(batch)
            with torch.inference_mode():  # the LM head (and last layer) only at the target tokens
                logits = scored_logits(model, input_ids.to(device), attention.to(device),
                                       torch.tensor(rows, dtype=torch.long), torch.tensor(cols, dtype=torch.long))
            gold = torch.tensor([ids[t] for ids, target in batch for t in target], dtype=torch.long)
            terms_all = torch.log_softmax(logits.float(), dim=-1)[torch.arange(len(cols), device=logits.device),
                                                                gold.to(logits.device)]
            pieces, out = iter(torch.split(terms_all, [len(t) for _, t in batch if t])), []
            for _ids, target in batch:
                if not target:
                    out.append(float("-inf"))  # truncated away or not tokenised: never chosen
                elif self.average == "prob":  # log of the mean probability (a multi-token word)
                    out.append(float(torch.logsumexp(next(pieces), 0) - np.log(len(target))))
                else:
                    out.append(float(next(pieces).mean()))
            if hasattr(self.scorer, "count"):
                self.scorer.count("forward_passes", 1)
            return out

        scores = run_batched(items, forward, self.scorer.batch_size, length=lambda it: len(it[0]),
                             progress=self.progress)
        return np.asarray(scores, dtype=np.float64)

    def select(self, candidates: dict[str, list[Occurrence]]) -> dict[str, Occurrence]:
        flat = [(s, occ) for s, occs in candidates.items() if len(occs) > 1 for occ in occs]
        scores = self.target_logprobs([occ for _, occ in flat]) if flat else np.empty(0)
        best: dict[str, tuple[float, Occurrence]] = {}
        for (s, occ), score in zip(flat, scores):
            if s not in best or score > best[s][0]:  # strict: ties keep the earlier context
                best[s] = (float(score), occ)
        chosen = {s: occ[0] for s, occ in candidates.items() if len(occ) == 1}
        chosen.update({s: occ for s, (_, occ) in best.items()})
        return chosen


def _word_forms(lemma: str) -> list[str]:
    base = lemma.replace("_", " ")
    forms = [base, base + "s", base + "es", base + "ed", base + "d", base + "ing"]
    if base.endswith("e"):
        forms.append(base[:-1] + "ing")
    if base.endswith("y"):
        forms += [base[:-1] + "ies", base[:-1] + "ied"]
    return sorted(set(forms), key=len, reverse=True)


def example_contexts(wn, pos: Sequence[str] = ("n", "v")) -> dict[str, list[Occurrence]]:
    """Contexts from WordNet's own example sentences, for ``lexprobe run``'s small set without SemCor: an
    example counts when one of the synset's lemmas (or a regular inflection) occurs in it as a whole word."""
    import re

    from lexprobe.benchmarks.coda21.dataset import target_pattern

    out: dict[str, list[Occurrence]] = {}
    for p in pos:
        for synset in wn.all_synsets(p):
            found = []
            for example in synset.examples():
                for lemma in synset.lemma_names():
                    m = next(filter(None, (target_pattern(form, re.IGNORECASE).search(example)
                                           for form in _word_forms(lemma))), None)
                    if m:
                        found.append(Occurrence(example, m.group(0), m.start()))
                        break
            if found:
                out[synset.name()] = found
    return out
