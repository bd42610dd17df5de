"""Target embeddings (``TokenVector`` requests: batched, located by character offsets) vs a plain reference."""

import functools

import numpy as np
import pytest
import torch

from lexprobe.asking.requests import TokenVector
from lexprobe.data.instances import SenseInstance
from lexprobe.models import load_scorer

SENTENCES = [
    ("the", "dog", "is", "singing", "a", "song", "."),
    ("a", "small", "cat", "makes", "a", "wink", "with", "one", "hand"),
    ("water", "light", "bkatuhla", "the", "signal"),
]


def _instances():
    out = []
    for s, toks in enumerate(SENTENCES):
        for i in range(len(toks)):
            out.append(SenseInstance(f"d{s}", toks, i, toks[i], "n", toks[i], "train", str(s)))
    return out


def vectors_of(embedder, instances, layer=None):
    """(vectors, found) of ``instances`` from one ``token_vectors`` call: a zero row where a target's
    subwords were not found (the answer None)."""
    got = embedder.token_vectors([TokenVector(inst.tokens, inst.index, layer) for inst in instances])
    zero = np.zeros(embedder.model.config.hidden_size, dtype=np.float32)
    return np.stack([zero if v is None else v for v in got]), np.array([v is not None for v in got])


@functools.lru_cache(maxsize=4)
def _load(path):
    from transformers import AutoModel, AutoTokenizer

    return AutoTokenizer.from_pretrained(path), AutoModel.from_pretrained(path).eval()


def _reference(path, tokens, index, layer):
    """One sentence at a time, unpadded; subwords found through the tokenizer's word_ids()
    (every test token is one pre-tokenizer word), not through character offsets."""
    tok, model = _load(path)
    enc = tok(" ".join(tokens), return_tensors="pt")
    with torch.no_grad():
        hs = model(**enc, output_hidden_states=True).hidden_states[layer][0]
    sel = [j for j, w in enumerate(enc.word_ids()) if w == index]
    return hs[sel].mean(0).numpy()


@pytest.mark.parametrize("layer", [-1, 0, 1])
def test_matches_reference_bert(tiny_bert, layer):
    emb = load_scorer(str(tiny_bert), kind="token", layer=layer, batch_size=2, device="cpu")
    insts = _instances()
    vectors, ok = vectors_of(emb, insts)
    assert ok.all()
    for inst, vec in zip(insts, vectors):
        ref = _reference(str(tiny_bert), inst.tokens, inst.index, layer)
        assert np.allclose(vec, ref, atol=1e-4), (inst.word, layer)
    # each sentence encoded once although it has several targets
    assert emb.stats["sentences_encoded"] == len(SENTENCES)


def test_matches_reference_roberta(tiny_roberta):
    emb = load_scorer(str(tiny_roberta), kind="token", batch_size=3, device="cpu")
    insts = _instances()
    vectors, ok = vectors_of(emb, insts)
    assert ok.all()
    for inst, vec in zip(insts, vectors):
        assert np.allclose(vec, _reference(str(tiny_roberta), inst.tokens, inst.index, -1), atol=1e-4)


def test_truncated_target_is_skipped(tiny_bert):
    toks = tuple(["dog"] * 30 + ["cat"])
    insts = [SenseInstance("d", toks, 30, "cat", "n", "c", "train", "1"),
             SenseInstance("d", toks, 0, "dog", "n", "d", "train", "1")]
    emb = load_scorer(str(tiny_bert), kind="token", max_length=16, device="cpu")
    got = emb.token_vectors([TokenVector(inst.tokens, inst.index) for inst in insts])
    assert got[0] is None and got[1] is not None and got[1].any()


def test_bad_layer_is_a_clear_error(tiny_bert):
    from lexprobe.errors import ModelError

    with pytest.raises(ModelError, match="layer 99"):
        load_scorer(str(tiny_bert), kind="token", layer=99, device="cpu")
