"""The authors' released inoculation recipe (``--recipe authors`` of ``senserank finetune``).

What ``scripts/all_experiments.sh`` runs (lgessler/bert-has-uncommon-sense @d12dcfe, allennlp 2.x semantics read
from allenai/allennlp v2.4.0), line by line in docs/senserank.md, "The authors' recipe": 99 instances (33 nouns,
verbs and prepositions: ``--num_insts`` is never passed, so ``--instances`` is only a label), their reader's
sample from a shuffle of the sentences, ``ss_ss2`` labels, the same batches of 8 every epoch, early stopping
with patience 5 on an evaluation-mode pass over the training data, the last epoch's weights kept. Not
reproducible: the unseeded shuffle, head initialisation and dropout (here all seeded).
"""

from __future__ import annotations

import random
from typing import Sequence

import torch
from torch import nn

from lexprobe.data.instances import SenseInstance
from lexprobe.errors import DataError

#: ``main.py finetune --num_insts`` default (100), never overridden by ``all_experiments.sh``
AUTHORS_NUM_INSTS = 100
AUTHORS_BATCH_SIZE = 8
AUTHORS_PATIENCE = 5
LEXCAT_ORDER = ("n", "v", "p")


def authors_sample(sentences: Sequence[Sequence[SenseInstance]], per_lexcat: int,
                   rng: random.Random) -> list[SenseInstance]:
    """``StreusleJsonReader._read`` (``bssp/fine_tuning/streusle.py:49-65``) with ``max_n = max_v = max_p =
    per_lexcat``: the sentence list (target-less sentences included) shuffled by ``rng`` (the same Mersenne Twister
    method as their unseeded ``random.shuffle``), then the first ``per_lexcat`` targets of each lexical category
    in reading order, kept in that order."""
    order = list(sentences)
    rng.shuffle(order)
    taken = dict.fromkeys(LEXCAT_ORDER, 0)
    out = []
    for sentence in order:
        for inst in sentence:
            if taken[inst.pos] < per_lexcat:
                taken[inst.pos] += 1
                out.append(inst)
    if len(out) < per_lexcat * len(LEXCAT_ORDER):  # main.py:412-414
        raise DataError(f"STREUSLE train has only {taken} nouns/verbs/prepositions; "
                        f"{per_lexcat} of each were requested")
    return out


def fixed_batches(train: Sequence[SenseInstance], batch_size: int) -> list[list[SenseInstance]]:
    """``SimpleDataLoader(shuffle=False)`` (``main.py:439``): consecutive slices, identical every epoch."""
    return [list(train[i : i + batch_size]) for i in range(0, len(train), batch_size)]


def train_authors(model, optimizer, batches, forward, epochs: int, patience: int,
                  progress: bool = True) -> tuple[list[dict], int]:
    """allennlp's loop (``main.py:453-461``): train on ``batches`` in order, then an evaluation-mode pass over the
    same batches; stop after ``patience`` epochs without a strictly lower pass loss (``MetricTracker``). No
    checkpointer: the model keeps its last epoch's weights (``trainer.py:882-886``). ``forward(batch)`` returns
    the batch's mean loss. Returns the per-epoch history and the epoch of the lowest pass loss."""
    history: list[dict] = []
    best, best_epoch, stale = None, 0, 0
    for epoch in range(1, epochs + 1):
        model.train()
        train_losses = []
        for batch in batches:
            loss = forward(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            train_losses.append(loss.item())
        model.eval()
        with torch.no_grad():
            pass_loss = sum(forward(batch).item() for batch in batches) / len(batches)
        history.append({"epoch": epoch, "train_loss": sum(train_losses) / len(batches),
                        "train_pass_loss": pass_loss, "dev_accuracy": None})
        if progress:
            print(f"epoch {epoch}: train loss {history[-1]['train_loss']:.4f}, "
                  f"eval-mode loss on the training data {pass_loss:.4f}", flush=True)
        if best is None or pass_loss < best:  # MetricTracker: -loss strictly greater
            best, best_epoch, stale = pass_loss, epoch, 0
        else:
            stale += 1
            if stale >= patience:
                break
    return history, best_epoch


def make_forward(model: nn.Module, encode, label_id: dict, device):
    """Mean cross-entropy of a batch; ``encode(batch) -> (encoding, target mask)`` (the authors' recipe: words
    tokenised alone, the mismatched indexer)."""
    loss_fn = nn.CrossEntropyLoss()

    def forward(batch):
        enc, tmask = encode(batch)
        gold = torch.tensor([label_id[i.label] for i in batch], device=device)
        logits = model(enc["input_ids"].to(device), enc["attention_mask"].to(device), tmask.to(device))
        return loss_fn(logits, gold)

    return forward
