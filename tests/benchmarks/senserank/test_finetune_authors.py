"""The authors' inoculation recipe (issue 18, item 6), checked by hand and against a
verbatim copy of their STREUSLE reader on the real STREUSLE 4.4 files."""

from __future__ import annotations

import gzip
import json
import random
import shutil

import numpy as np
import pytest
import torch

from lexprobe.benchmarks.senserank.finetune import (
    AUTHORS_NUM_INSTS, authors_sample, fixed_batches, train_authors,
)
from lexprobe.data.instances import SenseInstance


def _inst(name: str, pos: str) -> SenseInstance:
    return SenseInstance("d", (name,), 0, name, pos, f"{pos}.{name}", "train", name)


class _Reverse:
    """A stand-in rng whose shuffle reverses: the sampled order can be worked out by hand."""

    def shuffle(self, seq):
        seq.reverse()


def test_sample_is_first_per_lexcat_in_reading_order_hand_checked():
    a, b, c = _inst("a", "n"), _inst("b", "v"), _inst("c", "p")
    d, e, f = _inst("d", "n"), _inst("e", "n"), _inst("f", "p")
    g, h = _inst("g", "v"), _inst("h", "n")
    sentences = [[a, b, c], [], [d, e, f], [g, h]]
    # reversed: [g h] [d e f] [] [a b c]; quota 2 each: g(v1) h(n1) d(n2) e skipped f(p1) a skipped b(v2) c(p2)
    assert authors_sample(sentences, 2, _Reverse()) == [g, h, d, f, b, c]
    from lexprobe.errors import DataError

    with pytest.raises(DataError, match="only"):
        authors_sample(sentences, 3, _Reverse())  # 4 nouns, 2 verbs, 2 prepositions


def test_seeded_shuffle_counts_sentences_without_targets():
    """The whole sentence list is shuffled, so empty sentences change which targets are first."""
    full = [[_inst(f"n{i}", "n"), _inst(f"v{i}", "v"), _inst(f"p{i}", "p")] if i % 2 else [] for i in range(40)]
    order = list(range(40))
    random.Random(7).shuffle(order)
    want = [x for i in order for x in full[i]][:3]
    assert authors_sample(full, 1, random.Random(7)) == want
    dropped = authors_sample([s for s in full if s], 1, random.Random(7))
    assert dropped != want  # dropping the empty sentences would change the sample


def _authors_read(sentences: list[dict], max_n: int, max_v: int, max_p: int) -> list[tuple]:
    """``StreusleJsonReader._read`` (bssp/fine_tuning/streusle.py:43-69), verbatim but for the
    AllenNLP instance, which is replaced by (sent_id, token index, label)."""
    n_count = v_count = p_count = 0
    random.shuffle(sentences)
    out = []
    for sentence in sentences:
        for _, swe in sentence["swes"].items():
            token_id = swe["toknums"][0]
            lexcat = swe["lexcat"]
            if swe["ss"] is not None:
                match = False
                if lexcat == "N" and n_count < max_n:
                    match = True
                    n_count += 1
                elif lexcat == "V" and v_count < max_v:
                    match = True
                    v_count += 1
                elif lexcat == "P" and p_count < max_p:
                    match = True
                    p_count += 1
                if match:
                    ss = swe["ss"]
                    if swe["ss2"] is not None:
                        ss += "_" + swe["ss2"]
                    out.append((sentence["sent_id"], token_id - 1, ss))
    return out


@pytest.mark.parametrize("seed", [0, 13])
def test_sample_equals_the_authors_reader_after_random_seed(imported_data, tmp_path, seed):
    """Real STREUSLE dev (the train split here is .vis only): our sample from the JSON, the
    .vis and the conllulex equals the authors' reader run after ``random.seed(seed)``."""
    from lexprobe.data.streusle import authors_sentences, default_root

    root = default_root()
    with gzip.open(next((root / "dev").glob("*.json.gz")), "rt", encoding="utf-8") as f:
        raw = json.load(f)
    state = random.getstate()
    try:
        random.seed(seed)
        want = _authors_read(raw, 33, 33, 33)
    finally:
        random.setstate(state)
    assert len(want) == 99
    for ext in ("json.gz", "conllulex.gz", "vis"):
        only = tmp_path / ext / "dev"
        only.mkdir(parents=True)
        shutil.copy(next((root / "dev").glob(f"*.{ext}")), only)
        got = authors_sample(authors_sentences(only.parent, "dev"), 33, random.Random(seed))
        assert [(i.sent_id, i.index, i.label) for i in got] == want, ext
    labels = {i[2] for i in want}
    assert any(lab.startswith("p.") and "_p." in lab for lab in labels)  # prepositions: ss_ss2
    assert not any("_" in lab for lab in labels if lab.startswith(("n.", "v.")))


def test_vis_labels_equal_the_json_on_dev_and_test(imported_data):
    """The .vis writes ``ss:ss2`` only when they differ: its reconstruction equals the JSON."""
    from lexprobe.data.streusle import _authors_json, _authors_vis, default_root

    root = default_root()
    for split in ("dev", "test"):
        from_json = _authors_json(next((root / split).glob("*.json.gz")), split)
        from_vis = _authors_vis(next((root / split).glob("*.vis")), split)
        assert len(from_json) == len(from_vis) > 500  # every sentence, targets or not
        assert [[(i.index, i.pos, i.label) for i in s] for s in from_json] == \
               [[(i.index, i.pos, i.label) for i in s] for s in from_vis]


class _Scripted(torch.nn.Module):
    """One weight; the evaluation-mode pass returns scripted losses, one per epoch."""

    def __init__(self, pass_losses):
        super().__init__()
        self.w = torch.nn.Parameter(torch.tensor(1.0))
        self.pass_losses = list(pass_losses)
        self.seen_train, self.seen_eval, self.weights = [], [], []

    def forward(self, batch):
        if self.training:
            assert torch.is_grad_enabled()
            self.seen_train.append([i.sent_id for i in batch])
            return self.w * 1.0
        assert not torch.is_grad_enabled()  # evaluation mode, no gradients
        self.seen_eval.append([i.sent_id for i in batch])
        epoch, first = divmod(len(self.seen_eval) - 1, self.n_batches)
        if first == 0:
            self.weights.append(float(self.w))  # the weights this epoch ended with
        return torch.tensor(self.pass_losses[epoch])


def test_no_reshuffle_eval_pass_early_stopping_and_last_weights_hand_checked():
    train = [_inst(f"i{k}", "nvp"[k % 3]) for k in range(19)]
    batches = fixed_batches(train, 8)
    assert [len(b) for b in batches] == [8, 8, 3]
    # pass loss per epoch (each batch of the pass returns it, so the mean is it):
    # best 1.0 (e1), 0.9 (e2), 0.9 ties -> no improvement (e3, stale 1), 0.95 (e4, stale 2),
    # 0.8 new best (e5), then 0.85 x5 -> stale 5 after epoch 10: stop; best epoch 5
    losses = [1.0, 0.9, 0.9, 0.95, 0.8, 0.85, 0.85, 0.85, 0.85, 0.85, 0.1, 0.1]
    model = _Scripted(losses)
    model.n_batches = len(batches)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    history, best_epoch = train_authors(model, opt, batches, model, epochs=40, patience=5, progress=False)
    assert len(history) == 10 and best_epoch == 5
    assert [h["train_pass_loss"] for h in history] == pytest.approx(losses[:10])
    order = [[i.sent_id for i in b] for b in batches]
    assert model.seen_train == order * 10  # the same batches in the same order every epoch
    assert model.seen_eval == order * 10  # the pass runs over the training batches
    # the last epoch's weights are kept: 10 epochs x 3 SGD steps of d(w)/dw = 1 at lr 0.01
    assert model.w.item() == pytest.approx(1.0 - 0.01 * 30)
    assert model.weights == pytest.approx([1.0 - 0.03 * e for e in range(1, 11)])
    assert model.weights[best_epoch - 1] == pytest.approx(0.85)  # not what is kept


def test_words_alone_target_vector_is_the_evaluation_vector(tiny_roberta):
    """The fine-tuning head sees the vector the authors' evaluation ranks by."""
    from transformers import AutoModel, AutoTokenizer

    from lexprobe.benchmarks.senserank.finetune import SupersenseTagger, encode_targets
    from lexprobe.models import load_scorer

    tok = AutoTokenizer.from_pretrained(tiny_roberta)
    enc_model = AutoModel.from_pretrained(tiny_roberta).eval()
    words = ("the", "small", "dog", "is", "singing")
    inst = SenseInstance("d", words, 2, "dog", "n", "n.ANIMAL", "train", "s")
    enc, mask = encode_targets(tok, [inst], 64, words_alone=True)
    pieces = [tok(w, add_special_tokens=False)["input_ids"] for w in words]
    start = 1 + len(pieces[0]) + len(pieces[1])  # after <s>
    assert enc["input_ids"][0].tolist() == [tok.bos_token_id] + sum(pieces, []) + [tok.eos_token_id]
    assert mask[0].nonzero().flatten().tolist() == list(range(start, start + len(pieces[2])))
    tagger = SupersenseTagger(enc_model, 3).eval()
    with torch.no_grad():
        hidden = enc_model(**enc).last_hidden_state
        pooled = (hidden[0] * mask[0, :, None]).sum(0) / mask[0].sum()
    embedder = load_scorer(str(tiny_roberta), kind="token", device="cpu", words_alone=True)
    want, ok = embedder.embed_sentence(words, [2])
    assert ok.all()
    np.testing.assert_allclose(pooled.numpy(), want[0], atol=1e-5)
    assert tagger.head.in_features == hidden.shape[-1]


def test_authors_recipe_end_to_end_on_real_streusle(tiny_bert, imported_data, tmp_path):
    """99 instances whatever --instances says (the label only names the run), the authors'
    sample in training order, the fixed recipe; the same seed gives the same weights."""
    from safetensors.numpy import load_file

    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune
    from lexprobe.data.streusle import authors_sentences, default_root

    runs = {}
    for label in (100, 2500):
        out = tmp_path / f"ft-{label}"
        runs[label] = finetune(FinetuneConfig(model=str(tiny_bert), instances=label, out=str(out), epochs=1,
                                              max_length=128, device="cpu", seed=3, recipe="authors"),
                                progress=False)
    s = runs[2500]
    assert AUTHORS_NUM_INSTS == 100
    assert s["instances_label"] == 2500 and s["train_instances"] == 99
    assert s["train_by_pos"] == {"n": 33, "v": 33, "p": 33}
    want = authors_sample(authors_sentences(default_root(), "train"), 33, random.Random(3))
    assert s["train_sample"] == [f"{i.sent_id}#{i.index}" for i in want]
    assert any("_p." in lab for lab in s["labels"])
    assert s["config"]["batch_size"] == 8 and s["config"]["weight_decay"] == 0.0 and s["config"]["patience"] == 5
    assert s["dev_instances"] == 0 and s["best_dev_accuracy"] is None
    assert s["epochs_run"] == s["kept_epoch"] == 1 and s["history"][0]["train_pass_loss"] > 0
    # label 100 and label 2500: the same recipe, so with one seed the very same weights
    a = load_file(str(tmp_path / "ft-100" / "model.safetensors"))
    b = load_file(str(tmp_path / "ft-2500" / "model.safetensors"))
    assert a.keys() == b.keys() and all(np.array_equal(a[k], b[k]) for k in a)
    assert runs[100]["history"] == s["history"]
