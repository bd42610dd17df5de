"""Sense ranking vs the paper and the authors' code: buckets, OntoNotes, recipe choices."""

import random

import numpy as np
import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.data.instances import SenseInstance
from tests.standins.token_vector import TokenVectorOnly  # any vectors: the counts and buckets checked are theirs


def _many(lemma, label, n, split, pos="n", query=True):
    return [SenseInstance(f"{label}-{split}-{i}", ("a", lemma), 1, lemma, pos, label, split, "1", query=query)
            for i in range(n)]


def _corpus():
    # bank: 510 + 10 in D. The rare sense's query: sense frequency 10 (l < 500), lemma frequency 520 (l >= 500)
    # run: 500 + 1600 in D. run_1's query: sense frequency 500 (l >= 500) and r = 500/2100 < .25
    return (_many("bank", "bank_1", 510, "train") + _many("bank", "bank_2", 10, "train")
            + _many("bank", "bank_1", 1, "test") + _many("bank", "bank_2", 1, "test")
            + _many("run", "run_1", 500, "train") + _many("run", "run_2", 1600, "train")
            + _many("run", "run_1", 1, "test"))


def _by_label(result):
    return {q["label"]: q for q in result["instances"]}


def test_bucket_by_sense_frequency_hand_checked():
    sense = evaluate("senserank", TokenVectorOnly(), SenseConfig(corpus="synthetic"), items=_corpus(), progress=False)
    lemma = evaluate("senserank", TokenVectorOnly(), SenseConfig(corpus="synthetic", bucket_by="lemma"), items=_corpus(), progress=False)
    s, m = _by_label(sense), _by_label(lemma)
    assert (s["bank_2"]["n_relevant"], s["bank_2"]["n_candidates"]) == (10, 520)
    assert s["bank_2"]["bucket"] == "l<500 r<0.25" and m["bank_2"]["bucket"] == "l>=500 r<0.25"
    assert s["bank_1"]["bucket"] == m["bank_1"]["bucket"] == "l>=500 0.25<=r<1"
    assert s["run_1"]["bucket"] == m["run_1"]["bucket"] == "l>=500 r<0.25"
    assert sense["config"]["bucket_by"] == "sense" and lemma["config"]["bucket_by"] == "lemma"
    # Table 1's tell-tale: with l = sense frequency the oracle of l >= 500, r < .25 is exactly 100.00
    assert sense["baselines"]["oracle"]["synthetic"]["l>=500 r<0.25"]["pooled"] == 1.0
    # with the lemma's frequency the rare bank_2 (R = 10 < 50) joins that cell and its oracle drops
    assert lemma["metrics"]["synthetic"]["l>=500 r<0.25"]["n"] == 2
    assert lemma["baselines"]["oracle"]["synthetic"]["l>=500 r<0.25"]["pooled"] == pytest.approx(np.mean([1.0, np.mean([min(k, 10) / k for k in range(1, 51)])]))


def _line(doc, i, word, pos, lemma="-", sense="-"):
    return f"{doc} 0 {i} {word} {pos} * {lemma} - {sense} speaker * * -"


def _conll(rows):
    lines = ["#begin document (nw/x); part 000"]
    for sent in rows:
        lines += [_line("nw/x", i, *r) for i, r in enumerate(sent)] + [""]
    return "\n".join(lines + ["#end document", ""])


def test_ontonotes_nota_in_d_pos_rarity_and_any_tag(tmp_path):
    from lexprobe.data.ontonotes import read_ontonotes

    train = ([[("He", "PRP"), ("filed", "VBD", "file", "1")]] * 6 + [[("a", "DT"), ("file", "NN", "file", "1")]] * 6
             + [[("a", "DT"), ("file", "NN", "file", "5")]] * 3  # file_n_5.0: none of the above
             + [[("very", "RB"), ("fast", "RB", "fast", "1")]])  # a sense on an adverb tag is kept too
    test = [[("a", "DT"), ("file", "NN", "file", "1")], [("a", "DT"), ("file", "NN", "file", "5")]]
    for split, rows in (("train", train), ("test", test)):
        (tmp_path / split).mkdir()
        (tmp_path / split / "x.gold_conll").write_text(_conll(rows))
    insts = read_ontonotes(tmp_path, nota={"file_n_5.0"})
    nota = [i for i in insts if i.label == "file_n_5.0"]
    assert len(nota) == 4 and not any(i.query for i in nota)  # kept, but never a query
    assert [(i.pos, i.label) for i in insts if i.lemma == "fast"] == [("x", "fast_x_1.0")]

    result = evaluate("senserank", TokenVectorOnly(), SenseConfig(corpus="ontonotes", min_sense_count=1), items=insts, progress=False)
    (q,) = result["instances"]  # the NOTA query is skipped; the file_n_1.0 one is ranked
    assert q["label"] == "file_n_1.0" and result["counts"]["not_query_senses"] == 1
    # retrieval pools the lemma over both POS and the NOTA instances: N = 6 + 6 + 3
    assert (q["n_candidates"], q["n_relevant"]) == (15, 6)
    # r = R / count(lemma+POS) = 6 / (6 + 3): NOTA senses count in the frequencies
    assert q["rarity"] == pytest.approx(6 / 9)
    # other corpora: r = R / N
    other = evaluate("senserank", TokenVectorOnly(), SenseConfig(corpus="synthetic", min_sense_count=1), items=insts, progress=False)
    assert other["instances"][0]["rarity"] == pytest.approx(6 / 15)


def test_authors_semcor_split_is_by_sentence(monkeypatch):
    from lexprobe.data import semcor

    ann = semcor.SemcorAnnotation(1, "dog", "NN", "dog%1:05:00::")
    sentences = [semcor.SemcorSentence(f"doc{d}", str(s), ("a", "dog"), (ann,)) for d in range(4) for s in range(5)]
    monkeypatch.setattr(semcor, "iter_semcor_sentences", lambda archive=None: iter(sentences))
    by_sentence = semcor.semcor_instances(seed=42, split_by="sentence")
    order = list(range(20))
    random.Random(42).shuffle(order)  # the authors: random.Random(42).shuffle(sentences), first int(.8 n) = train
    assert [i.split == "train" for i in by_sentence] == [j in set(order[:16]) for j in range(20)]
    # documents straddle the two splits, which the document split never allows
    docs = {}
    for i in by_sentence:
        docs.setdefault(i.doc_id, set()).add(i.split)
    assert any(len(s) == 2 for s in docs.values())
    by_doc = semcor.semcor_instances(seed=42)
    assert all(len({i.split for i in by_doc if i.doc_id == d}) == 1 for d in docs)


def test_words_alone_tokenisation(tiny_roberta, tiny_bert):
    import torch

    from lexprobe.models import load_scorer

    words = ("the", "dog", "is", "a", "small", "animal")
    plain = load_scorer(str(tiny_roberta), kind="token", device="cpu")
    alone = load_scorer(str(tiny_roberta), kind="token", device="cpu", words_alone=True)
    tok = alone.tokenizer
    pieces = [tok(w, add_special_tokens=False)["input_ids"] for w in words]  # no prefix space: "dog", not "Ġdog"
    assert pieces[1] != tok(" dog", add_special_tokens=False)["input_ids"]
    ids = [tok.bos_token_id] + [p for ps in pieces for p in ps] + [tok.eos_token_id]
    with torch.no_grad():
        hidden = alone.model(input_ids=torch.tensor([ids])).last_hidden_state[0].numpy()
    start = 1 + sum(len(p) for p in pieces[:4])
    want = hidden[start:start + len(pieces[4])].mean(axis=0)  # "small" may be several pieces
    got, ok = alone.embed_sentence(words, [4])
    assert ok.all()
    np.testing.assert_allclose(got[0], want, atol=1e-5)
    assert not np.allclose(plain.embed_sentence(words, [4])[0][0], got[0], atol=1e-3)
    # WordPiece: the same pieces either way
    b_plain = load_scorer(str(tiny_bert), kind="token", device="cpu").embed_sentence(words, [1, 5])[0]
    b_alone = load_scorer(str(tiny_bert), kind="token", device="cpu", words_alone=True).embed_sentence(
        words, [1, 5])[0]
    np.testing.assert_allclose(b_plain, b_alone, atol=1e-5)


def test_finetuning_recipes_settings():
    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, sample_balanced

    pool = [SenseInstance("d", ("x",), 0, "x", p, "l", "train", str(i)) for p in "nvp" for i in range(40)]
    paper = sample_balanced(pool, 100, random.Random(0))
    assert [sum(i.pos == p for i in paper) for p in "nvp"] == [34, 33, 33]
    eff = FinetuneConfig(recipe="authors").effective()
    assert (eff.batch_size, eff.weight_decay, eff.patience) == (8, 0.0, 5)
    assert FinetuneConfig().effective() == FinetuneConfig()
    # the paper names HuggingFace's AdamW, whose weight decay defaults to 0 (torch's to 0.01)
    assert FinetuneConfig().weight_decay == 0.0
    # the authors' recipe end to end: tests/benchmarks/senserank/test_finetune_authors.py
