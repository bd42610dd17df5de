from types import SimpleNamespace

import numpy as np
import pytest

from lexprobe.benchmarks.coda21.builder import (
    BuildConfig, build_coda, cluster_by_similarity, largest_dissimilar_cluster, split_into_groups,
)
from lexprobe.benchmarks.coda21.contexts import (
    FirstContextSelector, MaskedContextSelector, Occurrence, collect_contexts,
)
from lexprobe.benchmarks.coda21.dataset import groups_to_official, parse_coda
from lexprobe.data.wordnet import load_wordnet
from lexprobe.errors import DataError

BIG_CATS = ["snow_leopard.n.01", "liger.n.01", "lion.n.01", "tiger.n.02", "cheetah.n.01",
            "saber-toothed_tiger.n.01", "tiglon.n.01", "jaguar.n.01", "leopard.n.02"]


@pytest.fixture(scope="module")
def wn():
    return load_wordnet()


def _sentence(words, index, key, doc="d", sent="1"):
    ann = SimpleNamespace(index=index, lemma=key.split("%")[0], pos="NN", sense_key=key)
    return SimpleNamespace(doc_id=doc, sent_id=sent, tokens=tuple(words), annotations=[ann])


def _sample(wn, counts: dict[str, int]):
    """SemCor-like sentences: ``counts[synset]`` sentences mentioning each synset."""
    sentences = []
    for name, n in counts.items():
        lemma = wn.synset(name).lemmas()[0]
        word = lemma.name()  # underscores kept, as SemCor joins multi-word tokens
        for i in range(n):
            sentences.append(_sentence(["Sentence", str(i), "about", "the", word, "."], 4, lemma.key(),
                                       sent=f"{name}-{i}"))
    return sentences


def _embedder(wn, near_duplicates=()):
    """Orthogonal definition vectors, except that ``near_duplicates`` share one direction."""
    names = sorted({s.name() for p in ("big_cat.n.01", "cat.n.01") for s in wn.synset(p).hyponyms()})
    index = {wn.synset(n).definition(): i for i, n in enumerate(names)}
    for name in near_duplicates[1:]:
        index[wn.synset(name).definition()] = index[wn.synset(near_duplicates[0]).definition()]
    calls = []

    def embed(texts):
        calls.append(list(texts))
        out = np.zeros((len(texts), len(names) + 1))
        for row, t in enumerate(texts):
            out[row, index[t]] = 1.0
            out[row, -1] = 0.1 * (row % 2)  # a little noise: not all ties
        return out

    embed.calls = calls
    return embed


def test_complete_link_clusters_hand_computed():
    # items x, y, z, w; w is a near-duplicate of x (0.9)
    sim = np.array([[1.0, 0.1, 0.2, 0.9],
                    [0.1, 1.0, 0.3, 0.0],
                    [0.2, 0.3, 1.0, 0.05],
                    [0.9, 0.0, 0.05, 1.0]])
    # merges by smallest max-similarity: {y,w} at 0.0, {x,z} at 0.2, then both at 0.9 > 0.8: stop;
    # two clusters of 2, the earlier formed {y, w} wins
    assert cluster_by_similarity(sim, k_max=10, theta=0.8) == [1, 3]
    assert cluster_by_similarity(sim, k_max=10, theta=0.95) == [0, 1, 2, 3]
    assert cluster_by_similarity(sim, k_max=3, theta=0.95) == [1, 3]  # a merge to 4 would exceed k_max
    # with embeddings: orthogonal vectors all merge up to the size limit
    assert len(largest_dissimilar_cluster(np.eye(7), k_max=10, theta=0.8)) == 7
    assert len(largest_dissimilar_cluster(np.eye(12), k_max=10, theta=0.8)) <= 10


def test_split_into_groups_invariants():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(40, 8))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    names = [f"s{i}" for i in range(40)]
    groups = split_into_groups(names, vectors, k_min=5, k_max=10, theta=0.8)
    assert groups
    flat = [n for g in groups for n in g]
    assert len(flat) == len(set(flat))  # no synset reused
    for g in groups:
        assert 5 <= len(g) <= 10
        idx = [names.index(n) for n in g]
        sim = vectors[idx] @ vectors[idx].T
        assert sim[~np.eye(len(g), dtype=bool)].max() <= 0.8 + 1e-9


def test_collect_contexts_counts_sentences_and_joins_multiword(wn):
    key = wn.synset("snow_leopard.n.01").lemmas()[0].key()
    s1 = _sentence(["a", "snow_leopard", "and", "a", "snow_leopard"], 1, key, sent="1")
    s1.annotations.append(SimpleNamespace(index=4, lemma="snow_leopard", pos="NN", sense_key=key))
    s2 = _sentence(["bad", "key"], 1, "nonexistent%1:00:00::", sent="2")
    got = collect_contexts([s1, s2], wn)
    assert list(got) == ["snow_leopard.n.01"]
    (occ,) = got["snow_leopard.n.01"]  # one sentence counts once
    assert occ == Occurrence("a snow leopard and a snow leopard", "snow leopard", 2)


def test_build_hard_on_a_wordnet_subtree(wn):
    counts = {name: 5 for name in BIG_CATS}
    counts["liger.n.01"] = 4  # too few contexts for clean
    sentences = _sample(wn, counts)
    groups = build_coda(wn, sentences, _embedder(wn), BuildConfig("clean-hard"), parents=["big_cat.n.01"])
    assert len(groups) == 1
    (g,) = groups
    assert g.id == "n/0" and g.relation == "parent" and g.ancestor == "big_cat.n.01"
    # all 8 eligible (>= 5 contexts) synsets, mutually dissimilar, fit in one group
    assert sorted(c.synset for c in g.candidates) == sorted(set(BIG_CATS) - {"liger.n.01"})
    for c in g.candidates:
        assert c.definition == wn.synset(c.synset).definition()
        assert c.context.startswith("Sentence 0 about the ")  # first-context selector
        assert c.word in c.context and "_" not in c.word
    # official JSON round trip
    again = parse_coda(groups_to_official(groups))
    assert again.problems == [] and again.groups[0].candidates == g.candidates
    # noisy accepts the synset with 4 contexts too
    noisy = build_coda(wn, sentences, _embedder(wn), BuildConfig("noisy-hard"), parents=["big_cat.n.01"])
    assert sorted(c.synset for c in noisy[0].candidates) == sorted(BIG_CATS)


def test_near_duplicate_definitions_never_share_a_group(wn):
    counts = {name: 5 for name in BIG_CATS}
    embed = _embedder(wn, near_duplicates=("tiger.n.02", "tiglon.n.01"))
    groups = build_coda(wn, _sample(wn, counts), embed, BuildConfig("clean-hard", k_min=3),
                        parents=["big_cat.n.01"])
    assert groups
    for g in groups:
        members = {c.synset for c in g.candidates}
        assert not {"tiger.n.02", "tiglon.n.01"} <= members
        assert 3 <= len(members) <= 10


def test_build_easy_uses_grandchildren_and_never_reuses(wn):
    grandchildren = sorted({s.name() for c in wn.synset("feline.n.01").hyponyms() for s in c.hyponyms()})
    counts = {name: 5 for name in grandchildren}
    embed = _embedder(wn)
    groups = build_coda(wn, _sample(wn, counts), embed, BuildConfig("clean-easy"),
                        parents=["feline.n.01", "feline.n.01", "big_cat.n.01"])
    members = [c.synset for g in groups for c in g.candidates]
    assert len(members) == len(set(members))
    assert set(members) <= set(grandchildren)
    assert groups[0].relation == "grandparent" and groups[0].ancestor == "feline.n.01"
    assert all(5 <= g.k <= 10 for g in groups)


def test_max_groups_and_bad_variant(wn):
    counts = {name: 5 for name in BIG_CATS}
    embed = _embedder(wn)
    assert build_coda(wn, _sample(wn, counts), embed, BuildConfig("clean-hard", max_groups=0),
                      parents=["big_cat.n.01"]) == []
    with pytest.raises(DataError, match="variant"):
        build_coda(wn, [], embed, BuildConfig("clean-medium"))


def test_first_selector():
    occ = [Occurrence("a b", "b", 2), Occurrence("c b", "b", 2)]
    assert FirstContextSelector().select({"x": occ}) == {"x": occ[0]}


def test_masked_selector_matches_plain_computation(tiny_bert):
    import torch

    from lexprobe.models import load_scorer

    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=2)
    occs = [Occurrence("the dog is a small animal", "dog", 4),
            Occurrence("a small dog with a beckoning hand", "dog", 8),
            Occurrence("the beckoning person", "beckoning", 4)]
    got = MaskedContextSelector(scorer, average="log").target_logprobs(occs)
    by_prob = MaskedContextSelector(scorer).target_logprobs(occs)  # the default: footnote 4
    tok = scorer.tokenizer
    for occ, value, value_prob in zip(occs, got, by_prob):
        enc = tok(occ.context, return_offsets_mapping=True)
        ids = enc["input_ids"]
        target = [i for i, (a, b) in enumerate(enc["offset_mapping"]) if b > a and a < occ.end and b > occ.start]
        masked = [tok.mask_token_id if i in target else t for i, t in enumerate(ids)]
        with torch.no_grad():
            logp = torch.log_softmax(scorer.model(input_ids=torch.tensor([masked])).logits[0], -1)
        want = float(np.mean([logp[i, ids[i]].item() for i in target]))
        assert value == pytest.approx(want, abs=1e-4)
        # footnote 4 (the default): average the probabilities of the word's pieces
        want_prob = float(np.log(np.mean([np.exp(logp[i, ids[i]].item()) for i in target])))
        assert value_prob == pytest.approx(want_prob, abs=1e-4)
        if len(target) > 1:  # the two averages differ exactly on multi-piece words (Jensen)
            assert value_prob > value + 1e-6
        else:
            assert value_prob == pytest.approx(value, abs=1e-6)
    assert len([i for i, (a, b) in enumerate(tok("the beckoning person", return_offsets_mapping=True)
                                              ["offset_mapping"]) if a >= 4 and b <= 13 and b > a]) > 1
    chosen = MaskedContextSelector(scorer).select({"dog.n.01": occs[:2], "x.n.01": occs[2:]})
    assert chosen["dog.n.01"] == occs[int(np.argmax(by_prob[:2]))]
    assert chosen["x.n.01"] == occs[2]  # a single context needs no model


def test_authors_cluster_rule_looks_past_the_first_violation():
    # a-b 0.0, c-d 0.05, ab-cd 0.1 (a cluster of 4 > k_max=3: the paper's rule stops here),
    # e-f 0.2, g-ef 0.3 (a valid cluster of 3 formed later), everything else 0.7
    sim = np.full((7, 7), 0.7)
    for (i, j), v in {(0, 1): 0.0, (2, 3): 0.05, (0, 2): 0.1, (0, 3): 0.1, (1, 2): 0.1, (1, 3): 0.1,
                      (4, 5): 0.2, (4, 6): 0.3, (5, 6): 0.3}.items():
        sim[i, j] = sim[j, i] = v
    np.fill_diagonal(sim, 1.0)
    assert cluster_by_similarity(sim, k_max=3, theta=0.8, rule="paper") == [0, 1]
    assert cluster_by_similarity(sim, k_max=3, theta=0.8, rule="authors") == [4, 5, 6]
    # theta still binds the authors' rule: below 0.3 the best is again a pair
    assert cluster_by_similarity(sim, k_max=3, theta=0.25, rule="authors") == [0, 1]
    # no limit broken before the end: both rules agree
    assert cluster_by_similarity(sim, k_max=10, theta=0.8, rule="authors") == list(range(7))
    with pytest.raises(DataError, match="cluster rule"):
        BuildConfig(cluster="mine").validate()


def test_candidate_sharing_a_word_with_the_group_is_skipped(wn):
    # native.n.01 ("an indigenous person ...") and native.n.02 ("a person born in a particular
    # place ...") are both children of person.n.01: only the first stays (authors' create_CoDA.py)
    names = ["native.n.01", "native.n.02", "national.n.01", "adult.n.01", "adventurer.n.01",
             "juvenile.n.01", "expert.n.01", "worker.n.01"]
    counts = {name: 5 for name in names}
    index = {wn.synset(n).definition(): i for i, n in enumerate(names)}

    def embed(texts):  # mutually orthogonal definitions: clustering keeps everyone
        out = np.zeros((len(texts), len(names)))
        for row, t in enumerate(texts):
            out[row, index[t]] = 1.0
        return out

    (group,) = build_coda(wn, _sample(wn, counts), embed, BuildConfig("clean-hard"), parents=["person.n.01"])
    members = [c.synset for c in group.candidates]
    assert "native.n.01" in members and "native.n.02" not in members
    assert sorted(members) == sorted(set(names) - {"native.n.02"})
    kept = build_coda(wn, _sample(wn, counts), embed, BuildConfig("clean-hard", skip_shared_words=False),
                      parents=["person.n.01"])
    assert {"native.n.01", "native.n.02"} <= {c.synset for c in kept[0].candidates}
