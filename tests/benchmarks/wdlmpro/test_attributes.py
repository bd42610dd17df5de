"""WDLMPro breakdown attributes: depth bands, frequency bands, counts files."""

from __future__ import annotations

import re

import pytest

from lexprobe.benchmarks.wdlmpro import attributes as at
from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.errors import DataError, LexprobeError


@pytest.fixture(scope="module")
def wn():
    from lexprobe.data.wordnet import load_wordnet

    try:
        return load_wordnet()
    except LexprobeError as err:
        pytest.skip(str(err))


@pytest.mark.parametrize(
    "depth, band",
    [(0, "0–2"), (2, "0–2"), (3, "3–5"), (5, "3–5"), (6, "6–8"), (8, "6–8"), (9, "9–11"), (11, "9–11"),
     (12, "12–14"), (14, "12–14"), (15, "15–19"), (19, "15–19"), (20, "20+"), (31, "20+")],
)
def test_depth_band(depth, band):
    assert at.depth_band(depth) == band


def test_depth_band_order_and_negative():
    assert at.depth_band_order() == ["0–2", "3–5", "6–8", "9–11", "12–14", "15–19", "20+"]
    assert at.depth_band_order()[1:6] == list(at.PAPER_DEPTH_BANDS)
    with pytest.raises(ValueError):
        at.depth_band(-1)


def test_synset_depth_counts_nodes_of_shortest_path(wn):
    # dog.n.01 < canine < carnivore < placental < mammal < vertebrate < chordate < animal
    # < organism < living_thing < whole < object < physical_entity < entity is its longest
    # path; the shortest: dog < domestic_animal < animal < organism < living_thing < whole
    # < object < physical_entity < entity: 9 nodes
    assert at.synset_depth("entity.n.01", wn) == 1
    assert at.synset_depth("physical_entity.n.01", wn) == 2
    assert at.synset_depth("dog.n.01", wn) == 9
    assert at.depth_band(at.synset_depth("dog.n.01", wn)) == "9–11"
    shortest = min(wn.synset("dog.n.01").hypernym_paths(), key=len)
    assert [s.name() for s in shortest][:2] == ["entity.n.01", "physical_entity.n.01"] and len(shortest) == 9
    # the authors' definition, on a spread of synsets (verbs have several roots)
    for name in ("cattalo.n.01", "a_cappella_singing.n.01", "beckon.v.01", "warm_up.v.04", "breathe.v.01", "dog.n.01"):
        assert at.synset_depth(name, wn) == min(len(p) for p in wn.synset(name).hypernym_paths())
    with pytest.raises(DataError, match="not a WordNet synset"):
        at.synset_depth("zzqx_blorp.n.01", wn)


@pytest.mark.parametrize(
    "word, tokens",
    [("dog", ["dog"]), ("a cappella singing", ["a", "cappella", "singing"]),
     ("jack-in-the-pulpit", ["jack-in-the-pulpit"]), ("ring-around-the-rosy", ["ring-around-the-rosy"]),
     ("white man's burden", ["white", "man", "'s", "burden"]), ("call one's bluff", ["call", "one", "'s", "bluff"]),
     ("tool-and-die work", ["tool-and-die", "work"]), ("st. john's wort", ["st.", "john", "'s", "wort"]),
     ("cannot", ["can", "not"])],
)
def test_word_tokens_are_nltk_tokens(word, tokens):
    assert at.word_tokens(word) == tokens


@pytest.mark.parametrize("zipf, band", [(0.0, "rare"), (0.99, "rare"), (1.0, "medium"), (1.99, "medium"), (2.0, "frequent"), (7.5, "frequent")])
def test_zipf_band(zipf, band):
    assert at.zipf_band(zipf) == band


@pytest.mark.parametrize("count, band", [(0, "rare"), (9, "rare"), (10, "medium"), (99, "medium"), (100, "frequent")])
def test_count_band(count, band):
    assert at.count_band(count) == band


def test_wordfreq_bander_phrases_and_long_targets(monkeypatch):
    import wordfreq

    looked_up = []
    fake_zipf = {"dog": 5.1, "beckon": 1.5, "cattalo": 0.0, "a": 7.5, "cappella": 3.2, "singing": 4.6,
                 "bel": 2.9, "canto": 3.4, "jack-in-the-pulpit": 1.2}

    def zipf_frequency(word, lang):
        looked_up.append(word)
        return fake_zipf[word]

    monkeypatch.setattr(wordfreq, "zipf_frequency", zipf_frequency)
    # a cappella singing: rarest word 3.2 - 2 extra words x 1.75 = -0.3 -> rare;
    # bel canto: 2.9 - 1.75 = 1.15 -> medium; without the penalty both would be frequent
    assert at.phrase_zipf("a cappella singing") == pytest.approx(3.2 - 2 * 1.75)
    assert at.phrase_zipf("bel canto", penalty=0.0) == pytest.approx(2.9)
    band = at.frequency_bander()
    assert [band(w) for w in ("dog", "beckon", "cattalo", "a cappella singing", "bel canto")] == [
        "frequent", "medium", "rare", "rare", "medium"]
    assert at.frequency_bander(phrase_penalty=0.5)("bel canto") == "frequent"  # 2.9 - 0.5
    # 1 NLTK token, so it is looked up (wordfreq splits it: its rarest word decides)
    looked_up.clear()
    fake_zipf.update({"jack": 4.0, "in": 7.0, "the": 7.7, "pulpit": 2.9})
    assert band("jack-in-the-pulpit") == "rare" and "pulpit" in looked_up
    looked_up.clear()
    assert band("white man's burden") == "rare" and looked_up == []  # 4 NLTK tokens: rare without a lookup


def test_real_wordfreq_extremes():
    band = at.frequency_bander()
    assert band("dog") == "frequent"
    assert band("zzqxjv") == "rare"


def test_counts_file(tmp_path):
    path = tmp_path / "counts.tsv"
    path.write_text("dog\t150\nDog\t5\nbeckon\t10\n\ncattalo\t9\nbel canto\t99\n", encoding="utf-8")
    assert at.load_counts(path) == {"dog": 155, "beckon": 10, "cattalo": 9, "bel canto": 99}
    band = at.frequency_bander(path)
    assert [band(w) for w in ("Dog", "beckon", "cattalo", "bel canto", "unseen")] == ["frequent", "medium", "rare", "medium", "rare"]
    path.write_text("white man's burden\t500\njack-in-the-pulpit\t50\nfool 's gold\t120\n", encoding="utf-8")
    band = at.frequency_bander(path)
    assert band("white man's burden") == "rare"  # > 3 NLTK tokens: rare regardless
    assert band("jack-in-the-pulpit") == "medium"  # one NLTK token: counted
    assert band("Fool's gold") == "frequent"  # found under the authors' key: NLTK tokens joined by spaces


@pytest.mark.parametrize("bad", ["dog 150", "dog\tmany", "dog\t-3", "\t4", "dog\t1\t2"])
def test_malformed_counts_file_names_line(tmp_path, bad):
    path = tmp_path / "counts.tsv"
    path.write_text("cat\t3\n\n" + bad + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=f"{path}:3: expected word<TAB>count"):
        at.load_counts(path)


def test_empty_or_missing_counts_file(tmp_path):
    empty = tmp_path / "empty.tsv"
    empty.write_text("\n", encoding="utf-8")
    with pytest.raises(DataError, match="empty"):
        at.frequency_bander(empty)
    with pytest.raises(DataError, match="not found"):
        at.load_counts(tmp_path / "missing.tsv")


def test_target_attributes(wn, tmp_path):
    def group(name, word):
        cands = tuple(Candidate(f"{name}{i}" if i else name, word, "d") for i in range(5))
        return SynsetGroup(name, name.split(".")[-2], word, cands)

    counts = tmp_path / "c.tsv"
    counts.write_text("a cappella singing\t12\n", encoding="utf-8")
    groups = [group("a_cappella_singing.n.01", "a cappella singing"), group("cattalo.n.01", "cattalo"),
              group("entity.n.01", "entity")]
    attrs = {g.target: a for g, a in zip(groups, at.attributes_fn(counts, wn=wn)(groups))}
    assert attrs["a_cappella_singing.n.01"] == {"depth": 10, "depth_band": "9–11", "frequency_band": "medium", "n_words": 3}
    assert attrs["cattalo.n.01"] == {"depth": 19, "depth_band": "15–19", "frequency_band": "rare", "n_words": 1}
    assert attrs["entity.n.01"]["depth_band"] == "0–2"
    fn = at.attributes_fn(counts, wn=wn)
    counts.write_text("cattalo\t500\n", encoding="utf-8")  # loaded once: later edits are not seen
    assert fn([group("cattalo.n.01", "cattalo"), group("dog.n.01", "dog")]) == [
        attrs["cattalo.n.01"], {"depth": 9, "depth_band": "9–11", "frequency_band": "rare", "n_words": 1}]


def test_stats_prints_depth_and_frequency_bands_beside_paper(wn, tmp_path, capsys):
    """Hand-checked: dog.n.01 depth 9 (12 candidates), a_cappella_singing.n.01 10 (16),
    cattalo.n.01 19 (8); beckon.v.01 5 (act < interact < communicate < gesticulate < beckon; 11)."""
    import re

    from lexprobe.benchmarks.wdlmpro import attributes as bs
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
    from lexprobe.cli import main

    groups = build_groups("n", targets=["dog.n.01", "a_cappella_singing.n.01", "cattalo.n.01"], wn=wn)
    groups += build_groups("v", targets=["beckon.v.01"], wn=wn)
    counts = tmp_path / "c.tsv"
    counts.write_text("dog\t150\na cappella singing\t12\nbeckon\t50\n", encoding="utf-8")
    attrs = at.attributes_fn(counts, wn=wn)(groups)
    assert bs.band_counts(groups, attrs, "depth_band") == {"n": {"9–11": (2, 14.0), "15–19": (1, 8.0)}, "v": {"3–5": (1, 11.0)}}
    assert bs.band_counts(groups, attrs, "frequency_band") == {
        "n": {"frequent": (1, 12.0), "medium": (1, 16.0), "rare": (1, 8.0)}, "v": {"medium": (1, 11.0)}}

    data = write_jsonl(groups, tmp_path / "g.jsonl")
    assert main(["wdlmpro", "stats", "--data", str(data), "--counts", str(counts)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"Noun\s+9–11\s+2\s+18,521\s+14\s+45", out)
    assert re.search(r"Noun\s+3–5\s+0\s+2,106\s+110", out)  # the paper's bands are all shown
    assert re.search(r"Verb\s+3–5\s+1\s+11", out)
    assert re.search(r"Noun\s+rare\s+1\s+10,703\s+-10,702", out) and re.search(r"Verb\s+frequent\s+0\s+6,754", out)


def _nltk_tokens(word: str) -> list[str]:
    from nltk.tokenize import NLTKWordTokenizer

    return NLTKWordTokenizer().tokenize(word)


@pytest.mark.parametrize("word", ["dog", "hot dog", "cannot", "Cannot stand", "wanna", "wanna be", "gonna", "gotta go",
                                  "lemme", "gimme five", "more", "St. John's wort", "well-known", "U.S.", "a  b",
                                  "Dr. No", "rock 'n' roll", "tis", "x", "ABC def"])
def test_word_tokens_are_nltks_tokens(word):
    """The shortcut for plain forms gives what NLTK's tokenizer gives, contractions included."""
    assert at.word_tokens(word) == _nltk_tokens(word)


def test_word_tokens_of_wordnet_lemmas_are_nltks_tokens(wn):
    """Every lemma of WordNet that looks like a contraction, and a seeded 5,000 of the rest, as NLTK tokenizes
    them (a form is a lemma name with spaces for underscores, as WDLMPro's targets are written)."""
    import random

    forms = sorted({name.replace("_", " ") for name in wn.all_lemma_names()})
    risky = [f for f in forms if re.search(r"(?i)can|gim|gon|got|lem|more|wan|'t|'ye|d'", f)]
    sample = random.Random(0).sample(forms, 5000)
    differ = [f for f in [*risky, *sample] if at.word_tokens(f) != _nltk_tokens(f)]
    assert len(risky) > 100 and differ == []
