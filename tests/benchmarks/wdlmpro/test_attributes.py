"""WDLMPro breakdown attributes: depth bands, frequency bands, counts files."""

from __future__ import annotations

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


def test_synset_depth_is_shortest_path_to_root(wn):
    assert at.synset_depth("entity.n.01", wn) == 0
    assert at.synset_depth("physical_entity.n.01", wn) == 1
    assert at.synset_depth("dog.n.01", wn) == 8  # its longest path (via domestic_animal) is 13 steps
    assert max(len(p) - 1 for p in wn.synset("dog.n.01").hypernym_paths()) == 13


@pytest.mark.parametrize(
    "word, tokens",
    [("dog", ["dog"]), ("a cappella singing", ["a", "cappella", "singing"]),
     ("jack-in-the-pulpit", ["jack", "in", "the", "pulpit"]), ("part-singing", ["part", "singing"]), (" x  - y ", ["x", "y"])],
)
def test_word_tokens(word, tokens):
    assert at.word_tokens(word) == tokens


@pytest.mark.parametrize("zipf, band", [(0.0, "rare"), (0.99, "rare"), (1.0, "medium"), (1.99, "medium"), (2.0, "frequent"), (7.5, "frequent")])
def test_zipf_band(zipf, band):
    assert at.zipf_band(zipf) == band


@pytest.mark.parametrize("count, band", [(0, "rare"), (9, "rare"), (10, "medium"), (99, "medium"), (100, "frequent")])
def test_count_band(count, band):
    assert at.count_band(count) == band


def test_wordfreq_bander_and_long_targets(monkeypatch):
    import wordfreq

    looked_up = []
    fake_zipf = {"dog": 5.1, "beckon": 1.5, "cattalo": 0.0, "a cappella singing": 2.7}

    def zipf_frequency(word, lang):
        looked_up.append((word, lang))
        return fake_zipf[word]

    monkeypatch.setattr(wordfreq, "zipf_frequency", zipf_frequency)
    band = at.frequency_bander()
    assert [band(w) for w in ("dog", "beckon", "cattalo", "a cappella singing")] == ["frequent", "medium", "rare", "frequent"]
    assert band("jack-in-the-pulpit") == "rare"  # 4 tokens: rare without a lookup
    assert ("jack-in-the-pulpit", "en") not in looked_up and ("dog", "en") in looked_up


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
    path.write_text("jack-in-the-pulpit\t500\n", encoding="utf-8")
    assert at.frequency_bander(path)("jack-in-the-pulpit") == "rare"  # > 3 tokens: rare regardless


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
    attrs = at.target_attributes([group("a_cappella_singing.n.01", "a cappella singing"), group("cattalo.n.01", "cattalo"),
                                  group("entity.n.01", "entity")], counts_file=counts, wn=wn)
    assert attrs["a_cappella_singing.n.01"] == {"depth": 9, "depth_band": "9–11", "frequency_band": "medium", "n_words": 3}
    assert attrs["cattalo.n.01"] == {"depth": 18, "depth_band": "15–19", "frequency_band": "rare", "n_words": 1}
    assert attrs["entity.n.01"]["depth_band"] == "0–2"
    fn = at.attributes_fn(counts, wn=wn)
    counts.write_text("cattalo\t500\n", encoding="utf-8")  # loaded once: later edits are not seen
    assert fn([group("cattalo.n.01", "cattalo"), group("dog.n.01", "dog")]) == [
        attrs["cattalo.n.01"], {"depth": 8, "depth_band": "6–8", "frequency_band": "rare", "n_words": 1}]
