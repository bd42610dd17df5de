"""Inoculation by fine-tuning (paper, Appendix A) on STREUSLE 4.4 supersenses.

A linear layer on top of the encoder predicts the supersense of a single-word noun,
verb or preposition from the target's embedding (mean of its subwords at the last
layer, exactly the vector sense ranking uses). Training instances are sampled from
the STREUSLE train split in equal numbers of nouns, verbs and prepositions
(``--instances`` in total; the remainder of a division by 3 goes to nouns, then
verbs). Prepositions use their first supersense (the scene role), as in the paper.

Optimiser: AdamW, learning rate 2e-5, up to 40 epochs. Early stopping (not in the
paper, which trains 40 epochs): after each epoch the accuracy on a balanced sample
of the STREUSLE dev split (half the training size, at least 60) is measured; the
best epoch's encoder is kept and training stops after ``patience`` epochs without
improvement. Everything is seeded. The encoder is saved with ``save_pretrained``
(safetensors) plus its tokenizer, so ``senserank eval --model DIR`` loads it like
any other model; the head and a training log are saved beside it.

``protocol="authors"`` follows the authors' released fine-tuning instead: n // 3
instances of each POS (33/33/33 for "100"), batch size 8, weight decay 0, early
stopping with patience 5 on the *training* loss (no dev set) and the last epoch's
weights kept.
"""

from __future__ import annotations

import copy
import json
import random
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np
import torch
from torch import nn

from lexprobe.data.instances import SenseInstance, token_char_spans
from lexprobe.errors import DataError, ModelError


@dataclass
class FinetuneConfig:
    model: str = "all-MiniLM-L6-v2"
    instances: int = 100
    out: str = "finetuned"
    path: str | None = None  # STREUSLE 4.4 root
    epochs: int = 40
    patience: int = 3
    lr: float = 2e-5
    batch_size: int = 16
    device: str | None = None
    seed: int = 0
    max_length: int = 256
    dev_instances: int | None = None
    protocol: str = "paper"  # paper | authors (33/33/33, batch 8, no weight decay, patience 5 on train loss)
    weight_decay: float = 0.01  # torch AdamW's default; the authors' code: 0

    def effective(self) -> "FinetuneConfig":
        """The settings actually used: the authors' protocol fixes batch size, decay and patience."""
        if self.protocol == "authors":
            return replace(self, batch_size=8, weight_decay=0.0, patience=5)
        return self


def sample_balanced(instances: Sequence[SenseInstance], n: int, rng: random.Random,
                    remainder: bool = True) -> list[SenseInstance]:
    """n instances, equal numbers of nouns, verbs and prepositions (remainder: nouns first;
    ``remainder=False``: n // 3 each, the authors' 33/33/33 for 100)."""
    quota = {p: n // 3 for p in ("n", "v", "p")}
    for p in ("n", "v", "p")[: n % 3 if remainder else 0]:
        quota[p] += 1
    picked = []
    for pos, want in quota.items():
        pool = sorted((i for i in instances if i.pos == pos), key=lambda x: (x.sent_id, x.index))
        if len(pool) < want:
            raise DataError(f"STREUSLE has only {len(pool)} single-word {pos} targets; {want} were requested")
        picked.extend(rng.sample(pool, want))
    rng.shuffle(picked)
    return picked


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


def encode_targets(tokenizer, instances: Sequence[SenseInstance], max_length: int):
    """Tokenised batch and a (B, T) mask of each target's subwords (located by character offsets)."""
    from lexprobe.scorers.token_embeddings import target_subwords

    enc = tokenizer([i.text for i in instances], return_offsets_mapping=True, padding=True, truncation=True,
                    max_length=max_length, return_tensors="pt", return_special_tokens_mask=True)
    offsets = enc.pop("offset_mapping").numpy()
    real = (enc["attention_mask"].numpy() > 0) & ~enc.pop("special_tokens_mask").numpy().astype(bool)
    mask = np.zeros(offsets.shape[:2], dtype=np.float32)
    for b, inst in enumerate(instances):
        s, e = token_char_spans(inst.tokens)[inst.index]
        mask[b] = target_subwords(offsets[b, :, 0], offsets[b, :, 1], real[b], s, e)
    return enc, torch.from_numpy(mask)


def finetune(cfg: FinetuneConfig, train_pool: Sequence[SenseInstance] | None = None,
             dev_pool: Sequence[SenseInstance] | None = None, progress: bool = True) -> dict:
    """Fine-tune ``cfg.model`` and save the best encoder to ``cfg.out``; returns a summary."""
    from transformers import AutoModel, AutoTokenizer

    from lexprobe.data.streusle import read_split, default_root
    from lexprobe.models import pick_device, resolve_model_path

    if cfg.protocol not in ("paper", "authors"):
        raise DataError(f"unknown protocol {cfg.protocol!r} for fine-tuning; use paper or authors")
    cfg = cfg.effective()
    authors = cfg.protocol == "authors"
    rng = random.Random(cfg.seed)
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    if train_pool is None or dev_pool is None:
        root = Path(cfg.path) if cfg.path else default_root()
        if not root.is_dir():
            if not cfg.path:
                from lexprobe.data.locations import missing_message

                raise DataError(missing_message("streusle") + ", or pass --path to a streusle-4.4 folder")
            raise DataError(f"STREUSLE 4.4 directory not found at {root}; pass --path to the streusle-4.4 folder")
        train_pool = read_split(root, "train", lemmatize=False) if train_pool is None else train_pool
        dev_pool = read_split(root, "dev", lemmatize=False) if dev_pool is None else dev_pool
    train = sample_balanced(train_pool, cfg.instances, rng, remainder=not authors)
    n_dev = cfg.dev_instances or max(60, cfg.instances // 2)
    dev = [] if authors else sample_balanced(dev_pool, min(n_dev, _balanced_capacity(dev_pool)), rng)
    labels = sorted({i.label for i in train})
    label_id = {lab: k for k, lab in enumerate(labels)}

    path = resolve_model_path(cfg.model)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True, trust_remote_code=False)
        encoder = AutoModel.from_pretrained(path, trust_remote_code=False, use_safetensors=True)
    except (OSError, ValueError) as err:
        raise ModelError(f"cannot load model {cfg.model!r}: {str(err).splitlines()[0]}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(f"model {cfg.model!r} has no fast tokenizer; targets are located by character offsets")
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    device = pick_device(cfg.device)
    model = SupersenseTagger(encoder, len(labels)).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    loss_fn = nn.CrossEntropyLoss()
    max_length = min(cfg.max_length, getattr(encoder.config, "max_position_embeddings", 512) or 512)

    history, best_acc, best_epoch, best_state, stale = [], -1.0, 0, None, 0
    for epoch in range(1, cfg.epochs + 1):
        model.train()
        order = list(range(len(train)))
        rng.shuffle(order)
        total = 0.0
        for start in range(0, len(order), cfg.batch_size):
            batch = [train[i] for i in order[start : start + cfg.batch_size]]
            enc, tmask = encode_targets(tokenizer, batch, max_length)
            gold = torch.tensor([label_id[i.label] for i in batch], device=device)
            logits = model(enc["input_ids"].to(device), enc["attention_mask"].to(device), tmask.to(device))
            loss = loss_fn(logits, gold)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item() * len(batch)
        train_loss = total / len(train)
        if authors:  # early stopping on the training loss; the last epoch's weights are kept
            history.append({"epoch": epoch, "train_loss": train_loss, "dev_accuracy": None})
            if progress:
                print(f"epoch {epoch}: train loss {train_loss:.4f}", flush=True)
            best_loss = min([h["train_loss"] for h in history[:-1]], default=float("inf"))
            if train_loss < best_loss:
                best_epoch, stale = epoch, 0
            else:
                stale += 1
                if stale >= cfg.patience:
                    break
            continue
        acc = _accuracy(model, tokenizer, dev, label_id, device, cfg.batch_size, max_length)
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
    out = Path(cfg.out)
    out.mkdir(parents=True, exist_ok=True)
    model.encoder.save_pretrained(out, safe_serialization=True)
    tokenizer.save_pretrained(out)
    torch.save(model.head.state_dict(), out / "supersense_head.pt")
    summary = {
        "config": asdict(cfg),
        "labels": labels,
        "train_instances": len(train),
        "train_by_pos": {p: sum(i.pos == p for i in train) for p in ("n", "v", "p")},
        "dev_instances": len(dev),
        "epochs_run": len(history),
        "best_epoch": best_epoch,  # authors: the epoch of the lowest training loss (the last epoch is kept)
        "kept_epoch": len(history) if authors else best_epoch,
        "best_dev_accuracy": None if authors else best_acc,
        "history": history,
    }
    (out / "lexprobe_finetune.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    return summary


def _balanced_capacity(pool: Sequence[SenseInstance]) -> int:
    return 3 * min(sum(i.pos == p for i in pool) for p in ("n", "v", "p"))


@torch.inference_mode()
def _accuracy(model, tokenizer, dev, label_id, device, batch_size, max_length) -> float:
    if not dev:
        return 0.0
    model.eval()
    correct = 0
    for start in range(0, len(dev), batch_size * 2):
        batch = dev[start : start + batch_size * 2]
        enc, tmask = encode_targets(tokenizer, batch, max_length)
        pred = model(enc["input_ids"].to(device), enc["attention_mask"].to(device), tmask.to(device)).argmax(-1)
        correct += sum(int(p) == label_id.get(i.label, -1) for p, i in zip(pred.tolist(), batch))
    return correct / len(dev)
