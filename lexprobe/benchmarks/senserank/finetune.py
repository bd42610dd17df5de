"""Inoculation by fine-tuning (paper, Appendix A) on STREUSLE 4.4 supersenses (docs/senserank.md, "Fine-tuning").

A linear head on the target's embedding (mean of its subwords at the last layer, the vector sense ranking uses)
predicts the supersense of a single-word noun, verb or preposition; ``--instances`` of them, in equal numbers
per POS, from STREUSLE train. AdamW (weight decay 0), learning rate 2e-5, up to 40 epochs, with early stopping
(not in the paper) on a balanced sample of STREUSLE dev, the best epoch kept; everything seeded. The encoder
is saved with ``save_pretrained`` and its tokenizer, so ``senserank eval --model DIR`` loads it like any model.

``--recipe authors`` follows what the authors' ``scripts/all_experiments.sh`` runs instead
(lgessler/bert-has-uncommon-sense @d12dcfe, allennlp 2.x semantics read from allenai/allennlp v2.4.0), line by
line in docs/senserank.md, "The authors' recipe": 99 instances (33 nouns, verbs and prepositions: ``--num_insts``
is never passed, so ``--instances`` is only a label), their reader's sample from a shuffle of the sentences,
``ss_ss2`` labels, the same batches of 8 every epoch, early stopping with patience 5 on an evaluation-mode pass
over the training data, the last epoch's weights kept. Not reproducible: the unseeded shuffle, head
initialisation and dropout (here all seeded).
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from torch import nn

from lexprobe.benchmarks.senserank.config import FinetuneConfig, recipe_of
from lexprobe.data.instances import SenseInstance
from lexprobe.errors import DataError, ModelError

#: ``main.py finetune --num_insts`` default (100), never overridden by ``all_experiments.sh``
AUTHORS_NUM_INSTS = 100
LEXCAT_ORDER = ("n", "v", "p")


def sample_balanced(instances: Sequence[SenseInstance], n: int, rng: random.Random,
                    remainder: bool = True) -> list[SenseInstance]:
    """n instances, equal numbers of nouns, verbs and prepositions (remainder: nouns first;
    ``remainder=False``: n // 3 each)."""
    quota = {p: n // 3 for p in LEXCAT_ORDER}
    for p in LEXCAT_ORDER[: n % 3 if remainder else 0]:
        quota[p] += 1
    picked = []
    for pos, want in quota.items():
        pool = sorted((i for i in instances if i.pos == pos), key=lambda x: (x.sent_id, x.index))
        if len(pool) < want:
            raise DataError(f"STREUSLE has only {len(pool)} single-word {pos} targets; {want} were requested")
        picked.extend(rng.sample(pool, want))
    rng.shuffle(picked)
    return picked


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


class SupersenseTagger(nn.Module):
    """Encoder + linear head over the mean of the target's subword vectors."""

    def __init__(self, encoder, n_labels: int):
        super().__init__()
        self.encoder = encoder
        self.head = nn.Linear(encoder.config.hidden_size, n_labels)

    def forward(self, input_ids, attention_mask, target_mask):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        weights = target_mask / target_mask.sum(dim=1, keepdim=True).clamp(min=1)
        pooled = torch.einsum("bt,btd->bd", weights.to(hidden.dtype), hidden)
        return self.head(pooled)


def encode_targets(tokenizer, instances: Sequence[SenseInstance], max_length: int, words_alone: bool = False):
    """Tokenised batch and a (B, T) mask of each target's subwords, as the token embedder finds them (by
    character offsets; ``words_alone``: every word tokenised on its own, as AllenNLP's mismatched indexer does)."""
    from lexprobe.scorers.token_embeddings import text_inputs, words_alone_inputs

    jobs = [(inst.tokens, [inst.index]) for inst in instances]
    enc, word_pieces = (words_alone_inputs if words_alone else text_inputs)(tokenizer, jobs, max_length)
    mask = torch.zeros(enc["input_ids"].shape, dtype=torch.float32)
    for b, inst in enumerate(instances):
        mask[b, torch.as_tensor(word_pieces[b][inst.index], dtype=torch.long)] = 1.0
    return enc, mask


def finetune(cfg: FinetuneConfig, train_pool: Sequence[SenseInstance] | None = None,
             dev_pool: Sequence[SenseInstance] | None = None, progress: bool = True,
             train_sentences: Sequence[Sequence[SenseInstance]] | None = None) -> dict:
    """Fine-tune ``cfg.model`` and save the encoder to ``cfg.out``; returns a summary.

    ``train_pool``/``dev_pool`` (the paper's recipe) and ``train_sentences`` (the authors',
    ``streusle.authors_sentences``) replace reading STREUSLE from ``cfg.path``."""
    from transformers import AutoModel, AutoTokenizer

    from lexprobe.loaded_weights import check_complete
    from lexprobe.models import pick_device, resolve_model_path

    authors = recipe_of(cfg).authors_inoculation
    cfg = cfg.effective()
    rng = random.Random(cfg.seed)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    if authors:
        from lexprobe.data.streusle import authors_sentences

        if train_sentences is None:
            train_sentences = authors_sentences(_streusle_root(cfg), "train")
        train, dev = authors_sample(train_sentences, AUTHORS_NUM_INSTS // 3, rng), []
    else:
        from lexprobe.data.streusle import read_split

        if train_pool is None or dev_pool is None:
            root = _streusle_root(cfg)
            train_pool = read_split(root, "train", lemmatize=False) if train_pool is None else train_pool
            dev_pool = read_split(root, "dev", lemmatize=False) if dev_pool is None else dev_pool
        train = sample_balanced(train_pool, cfg.instances, rng)
        n_dev = cfg.dev_instances or max(60, cfg.instances // 2)
        dev = sample_balanced(dev_pool, min(n_dev, 3 * min(sum(i.pos == p for i in dev_pool) for p in LEXCAT_ORDER)),
                              rng)
    labels = sorted({i.label for i in train})
    label_id = {lab: k for k, lab in enumerate(labels)}

    path = resolve_model_path(cfg.model)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True, trust_remote_code=False)
        encoder, loading = AutoModel.from_pretrained(path, trust_remote_code=False, use_safetensors=True,
                                                     output_loading_info=True)
    except (OSError, ValueError) as err:
        raise ModelError(f"cannot load model {cfg.model!r}: {str(err).splitlines()[0]}") from None
    check_complete(encoder, loading, cfg.model, "token")  # a damaged encoder would be fine-tuned from random weights
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(f"model {cfg.model!r} has no fast tokenizer; targets are located by character offsets")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    device = pick_device(cfg.device)
    model = SupersenseTagger(encoder, len(labels)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    max_length = min(cfg.max_length, getattr(encoder.config, "max_position_embeddings", 512) or 512)
    encode = lambda batch: encode_targets(tokenizer, batch, max_length, words_alone=authors)  # noqa: E731
    loss_fn = nn.CrossEntropyLoss()

    def forward(batch):
        """The batch's mean cross-entropy."""
        enc, tmask = encode(batch)
        gold = torch.tensor([label_id[i.label] for i in batch], device=device)
        return loss_fn(model(enc["input_ids"].to(device), enc["attention_mask"].to(device), tmask.to(device)), gold)

    if authors:
        history, best_epoch = train_authors(model, optimizer, fixed_batches(train, cfg.batch_size), forward,
                                            cfg.epochs, cfg.patience, progress)
        best_acc = None
    else:
        history, best_epoch, best_acc = _train_paper(model, optimizer, forward, encode, train, dev, label_id,
                                                     device, cfg, rng, progress)
    summary = {
        "config": asdict(cfg), "labels": labels,
        "instances_label": cfg.instances,  # authors: only the name of the run, as in models/MODEL_N.pt
        "train_instances": len(train), "train_by_pos": {p: sum(i.pos == p for i in train) for p in LEXCAT_ORDER},
        "train_sample": [f"{i.sent_id}#{i.index}" for i in train],  # in training order
        "dev_instances": len(dev), "epochs_run": len(history),
        # paper: the epoch of the best dev accuracy (kept); authors: the epoch of the lowest
        # evaluation-mode loss on the training data (the last epoch is kept)
        "best_epoch": best_epoch, "kept_epoch": len(history) if authors else best_epoch,
        "best_dev_accuracy": best_acc, "history": history,
    }
    from lexprobe.outputs import files_into, write_atomic

    with files_into(Path(cfg.out)) as staging:  # renamed into --out: never written through a link planted there
        model.encoder.save_pretrained(staging, safe_serialization=True)
        tokenizer.save_pretrained(staging)
        torch.save(model.head.state_dict(), staging / "supersense_head.pt")
        write_atomic(staging / "lexprobe_finetune.json", json.dumps(summary, indent=1))
    return summary


def _streusle_root(cfg: FinetuneConfig) -> Path:
    from lexprobe.data.streusle import streusle_root

    return streusle_root(cfg.path or None)


def _train_epoch(model, optimizer, forward, batches) -> list[float]:
    """One pass of training steps over ``batches``; each batch's loss."""
    model.train()
    losses = []
    for batch in batches:
        loss = forward(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return losses


def _train_paper(model, optimizer, forward, encode, train, dev, label_id, device, cfg, rng, progress):
    """Reshuffled batches every epoch; dev accuracy after each; the best epoch's weights restored."""
    history, best_acc, best_epoch, best_state, stale = [], -1.0, 0, None, 0
    for epoch in range(1, cfg.epochs + 1):
        order = list(range(len(train)))
        rng.shuffle(order)
        batches = [[train[i] for i in order[start : start + cfg.batch_size]]
                   for start in range(0, len(order), cfg.batch_size)]
        losses = _train_epoch(model, optimizer, forward, batches)
        train_loss = sum(loss * len(batch) for loss, batch in zip(losses, batches)) / len(train)
        acc = _accuracy(model, encode, dev, label_id, device, cfg.batch_size)
        history.append({"epoch": epoch, "train_loss": train_loss, "dev_accuracy": acc})
        if progress:
            print(f"epoch {epoch}: train loss {train_loss:.4f}, dev accuracy {acc:.3f}", flush=True)
        if acc > best_acc:
            best_acc, best_epoch, stale = acc, epoch, 0
            best_state = copy.deepcopy({k: v.detach().cpu() for k, v in model.state_dict().items()})
        else:
            stale += 1
            if stale >= cfg.patience:
                break
    if best_state is not None:
        model.load_state_dict(best_state)
    return history, best_epoch, best_acc


def train_authors(model, optimizer, batches, forward, epochs: int, patience: int,
                  progress: bool = True) -> tuple[list[dict], int]:
    """allennlp's loop (``main.py:453-461``): train on ``batches`` in order, then an evaluation-mode pass over the
    same batches; stop after ``patience`` epochs without a strictly lower pass loss (``MetricTracker``). No
    checkpointer: the model keeps its last epoch's weights (``trainer.py:882-886``). ``forward(batch)`` returns
    the batch's mean loss. Returns the per-epoch history and the epoch of the lowest pass loss."""
    history: list[dict] = []
    best, best_epoch, stale = None, 0, 0
    for epoch in range(1, epochs + 1):
        train_losses = _train_epoch(model, optimizer, forward, batches)
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


@torch.inference_mode()
def _accuracy(model, encode, dev, label_id, device, batch_size) -> float:
    if not dev:
        return 0.0
    model.eval()
    correct = 0
    for start in range(0, len(dev), batch_size * 2):
        batch = dev[start : start + batch_size * 2]
        enc, tmask = encode(batch)
        pred = model(enc["input_ids"].to(device), enc["attention_mask"].to(device), tmask.to(device)).argmax(-1)
        correct += sum(int(p) == label_id.get(i.label, -1) for p, i in zip(pred.tolist(), batch))
    return correct / len(dev)
