"""SemCor under ``--recipe authors`` (issue 18, item 7): the authors' reader, labels,
query filter, pool key and sense proportion, checked by hand."""

from __future__ import annotations

import random

import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.data import semcor
from lexprobe.data.instances import SenseInstance
from tests.standins.token_vector import TokenVectorOnly
from tests.data.test_semcor import _archive, _naf


class _Lemma:
    def __init__(self, synset, name):
        self._synset, self._name = synset, name

    def synset(self):
        return type("S", (), {"name": lambda _: self._synset})()

    def name(self):
        return self._name


class FakeWordNet:
    """``lemma_from_key`` over a fixed table; any other key raises like NLTK's."""

    KEYS = {"say%2:32:00::": ("state.v.01", "say"), "bank%1:14:00::": ("depository_financial_institution.n.01", "bank"),
            "close%2:30:00::": ("close.v.01", "close"), "run%2:38:00::": ("run.v.01", "run")}

    def lemma_from_key(self, key):
        if key.lower() not in self.KEYS:
            raise ValueError(f"no synset for {key}")
        return _Lemma(*self.KEYS[key.lower()])


def test_labels_pool_keys_and_queries_hand_checked():
    wn = FakeWordNet()
    assert semcor.authors_label("say", "2:32:00::", "1", wn) == "state.v.01_say"
    # failed look-ups: NLTK's "lemma.pos.NN", or "lemma.pos.wnsn" when wnsn is not a number
    assert semcor.authors_label("such", "5:00:00:specified:00", "0", wn) == "such.s.00"
    assert semcor.authors_label("year", "1:28:02::;1:28:01::", "2;1", wn) == "year.n.2;1"
    # the pool key is the synset name, or a synset name's first word when it has "_"
    assert semcor.authors_pool_key("state.v.01_say") == "state.v.01"
    assert semcor.authors_pool_key("depository_financial_institution.n.01_bank") == "depository"
    assert semcor.authors_lemma_of_label("state.v.01_say") == "say"
    assert [semcor.authors_is_query(x) for x in ("state.v.01_say", "NE", "such.s.00")] == [True, False, False]


def test_authors_reader_on_a_naf_archive(tmp_path):
    """Leaves split at multi-word tokens, the sentence-final target dropped, the Random(42)
    sentence split, synset_lemma labels."""
    sents = [["They", "say", "banks", "close", "."],  # say, banks, close tagged
             ["They", "took_place", "and", "run"],  # take_place (multi-word) and run (last token) tagged
             ["a", "took_place", "run", "."]]  # run after a multi-word token: leaf index 3
    tagged = {(1, 1): ("say", "VB", "2:32:00::", "x"), (1, 2): ("bank", "NN", "1:14:00::", "x"),
              (1, 3): ("close", "VB", "2:30:00::", "x"), (2, 1): ("take_place", "VB", "2:30:00::", "x"),
              (2, 3): ("run", "VB", "2:38:00::", "x"), (3, 2): ("run", "VB", "2:38:00::", "x"),
              (3, 0): ("a", "DT", "5:00:00:specified:00", "x")}
    path = _archive(tmp_path / "s.tar.xz", {"semcor3.0/brown1/br-x0.naf": _naf(sents, tagged)})
    counts: dict = {}
    got = semcor.authors_semcor_instances(path, wordnet=FakeWordNet(), counts=counts)
    assert counts == {"multiword": 1, "sentence_final": 1, "no_wordnet_lemma": 1, "kept": 5}
    assert [(i.sent_id, i.tokens[i.index], i.index, i.label, i.lemma, i.query) for i in got] == [
        ("1", "say", 1, "state.v.01_say", "state.v.01", True),
        ("1", "banks", 2, "depository_financial_institution.n.01_bank", "depository", True),
        ("1", "close", 3, "close.v.01_close", "close.v.01", True),
        ("3", "a", 0, "a.s.01", "a.s.01", False),  # _naf writes sense number 1
        ("3", "run", 3, "run.v.01_run", "run.v.01", True),
    ]
    assert got[-1].tokens == ("a", "took", "place", "run", ".")
    order = list(range(3))
    random.Random(42).shuffle(order)  # dataset_reader.py:86-92: first int(0.8 * 3) = 2 sentences are train
    train = {str(k + 1) for k in order[:2]}
    assert [i.split for i in got] == ["train" if i.sent_id in train else "test" for i in got]


def _many(label, n, split, query=True):
    key = semcor.authors_pool_key(label)
    return [SenseInstance(f"{label}-{split}-{i}", ("they", "x"), 1, key, "v", label, split, str(i), query=query)
            for i in range(n)]


def test_pool_by_synset_and_rarity_by_lemma_name_hand_checked():
    """say in two synsets, state.v.01 shared with the lemma state: the query of state.v.01_say
    ranks the 8 state.v.01 instances (not the 10 of "say"), and r = 6 / 10 (the count of the
    lemma name "say" in D, analysis.py:46), not R / N = 6 / 8."""
    insts = (_many("state.v.01_say", 6, "train") + _many("state.v.01_state", 2, "train")
             + _many("say.v.02_say", 4, "train") + _many("such.s.00", 5, "train")
             + _many("state.v.01_say", 1, "test") + _many("such.s.00", 1, "test", query=False))
    cfg = SenseConfig(corpus="semcor", recipe="authors", min_sense_count=1)
    result = evaluate("senserank", TokenVectorOnly(), cfg, items=insts, progress=False)
    (q,) = result["instances"]
    assert result["counts"]["not_query_senses"] == 1
    assert (q["label"], q["n_candidates"], q["n_relevant"]) == ("state.v.01_say", 8, 6)
    assert q["rarity"] == pytest.approx(6 / 10)
    # the same instances under the paper's recipe: r = R / N
    paper = evaluate("senserank", TokenVectorOnly(), SenseConfig(corpus="semcor", min_sense_count=1), items=insts, progress=False)
    assert paper["instances"][0]["rarity"] == pytest.approx(6 / 8)


def test_real_wordnet_labels():
    """NLTK's WordNet 3.0 gives the authors' labels (the lexical keys of SemCor's NAF)."""
    from lexprobe.data.wordnet import load_wordnet

    try:
        wn = load_wordnet()
    except Exception as err:  # noqa: BLE001
        pytest.skip(f"WordNet not installed: {err}")
    assert semcor.authors_label("say", "2:32:00::", "1", wn) == "state.v.01_say"
    assert semcor.authors_label("primary_election", "1:04:00::", "1", wn) == "primary.n.01_primary_election"
    assert semcor.authors_label("year", "1:28:02::;1:28:01::", "2;1", wn) == "year.n.2;1"
    assert semcor.authors_label("n't", "4:02:00::", "0", wn) == "n't.r.00"


def test_layer_sweep_under_the_authors_recipe_equals_single_layer_runs(tmp_path, tiny_bert):
    """Before the Benchmark contract (#16) the sweep read the paper's corpus and tokenisation, so
    `--layers` refused `--protocol authors` (it would have mixed the authors' r rule with the paper's
    labels). Now the sweep evaluates the items and the tokenisation of the recipe, like one `--layer`
    run: each layer of an authors sweep equals the authors run of that layer, and differs from the
    paper's."""
    import json

    from lexprobe.cli import main
    from tests.behaviour_baseline import differences

    base = ["senserank", "eval", "--corpus", "semcor", "--path", str(semcor.sample_archive()), "--max-instances",
            "300", "--model", str(tiny_bert), "--device", "cpu"]

    def run(name, *args):
        assert main([*base, *args, "--out", str(tmp_path / name)]) == 0
        return json.loads((tmp_path / name).read_text(encoding="utf-8"))

    sweep = run("sweep.json", "--recipe", "authors", "--layers", "0,-1")
    layer0 = sweep["sweep"]["values"]["0"]
    authors = run("authors.json", "--recipe", "authors", "--layer", "0")
    paper = run("paper.json", "--layer", "0")
    assert sweep["recipe"] == "authors" and authors["counts"].get("not_query_senses") is not None
    for part in ("metrics", "baselines"):
        assert not differences(authors[part], layer0[part]), part
    assert differences(paper["metrics"], layer0["metrics"])  # the recipe is applied, not the paper's
