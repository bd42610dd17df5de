"""The authors' released inoculation recipe (``--recipe authors`` of ``senserank finetune``).

What ``scripts/all_experiments.sh`` runs (lgessler/bert-has-uncommon-sense @d12dcfe),
line by line; allennlp 2.x semantics read from allenai/allennlp v2.4.0:

* **Size.** ``all_experiments.sh:24`` calls ``main.py finetune MODEL models/MODEL_N.pt``
  without ``--num_insts``, so every model is trained on the default 100
  (``main.py:400``), i.e. ``100 // 3 = 33`` nouns, verbs and prepositions each
  (``main.py:403``): 99 instances whatever N. N only names the weights file, and
  ``summarize`` reads the "# FT Instances" column back from that name
  (``main.py:353-356``). ``--instances`` is therefore only a label here.
* **Sample.** ``StreusleJsonReader._read`` (``bssp/fine_tuning/streusle.py:49-65``)
  shuffles the whole train sentence list with the unseeded module-level
  ``random.shuffle``, then walks each sentence's single-word expressions in order and
  takes those of lexical category exactly ``N``, ``V`` or ``P`` with a supersense until
  each category has its 33. ``authors_sample`` does the same with
  ``random.Random(seed)``: the same Mersenne Twister method, so it equals the authors'
  reader run after ``random.seed(seed)``.
* **Labels.** ``ss + "_" + ss2`` when there is an ``ss2`` (``streusle.py:37-39``):
  prepositions get scene role and function (``p.Locus_p.Locus``), not the first
  supersense the paper's appendix names.
* **Order.** ``SimpleDataLoader(instances, batch_size=8)`` (``main.py:439``) has
  ``shuffle=False``: the same batches of 8, in reader order, every epoch.
* **Early stopping.** ``GradientDescentTrainer(validation_data_loader=loader,
  patience=5)`` (``main.py:453-461``) validates on the *training* loader: after each
  epoch an evaluation-mode pass (dropout off, no gradients) over the same batches;
  the tracked metric is ``-loss``, the mean of the per-batch mean losses
  (``training/util.py:get_metrics``); training stops once 5 epochs in a row bring no
  strictly lower value (``MetricTracker``). Without a ``serialization_dir`` there is no
  checkpointer, so the **last** epoch's weights are kept, not the best
  (``trainer.py:882-886`` in v2.4.0; v2.5+ keep the last too without one).
* **Optimiser.** ``HuggingfaceAdamWOptimizer(lr=2e-5)``: weight decay 0, eps 1e-8,
  bias correction (``optimizers.py:458-466``), the same update as ``torch.optim.AdamW``
  with ``weight_decay=0``; up to 40 epochs.
* **Vector.** ``PretrainedTransformerMismatchedEmbedder`` (``main.py:444``): each word
  tokenised on its own, the word vector the mean of its pieces at the last layer
  (``models.py:22-27`` picks the target word's).

Not reproducible: the unseeded shuffle, head initialisation and dropout (here all
seeded). The five "# FT Instances" rows of one model in the paper are five such
independent runs of this one recipe.
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
    """``StreusleJsonReader._read`` with ``max_n = max_v = max_p = per_lexcat``: the sentence
    list (target-less sentences included) shuffled by ``rng``, then the first ``per_lexcat``
    targets of each lexical category in reading order, kept in that order."""
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
    """``SimpleDataLoader(shuffle=False)``: consecutive slices, identical every epoch."""
    return [list(train[i : i + batch_size]) for i in range(0, len(train), batch_size)]


def train_authors(model, optimizer, batches, forward, epochs: int, patience: int,
                  progress: bool = True) -> tuple[list[dict], int]:
    """allennlp's loop: train on ``batches`` in order, then an evaluation-mode pass over the
    same batches; stop after ``patience`` epochs without a strictly lower pass loss. The
    model is left with its last epoch's weights. ``forward(batch)`` returns the batch's mean
    loss. Returns the per-epoch history and the epoch of the lowest pass loss."""
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
