"""STREUSLE readers (json, conllulex, .vis) on small files written here; they must agree."""

import functools
import gzip
import json

import pytest

from lexprobe.data.streusle import (
    parse_vis_line,
    read_split,
    read_streusle_conllulex,
    read_streusle_json,
    read_streusle_vis,
    streusle_instances,
)
from lexprobe.errors import DataError
from tests.optional import missing_shared

# "I had a routine surgery for an ingrown toenail ." with "had ... surgery" a gappy strong MWE,
# "ingrown toenail" a strong MWE; "Buyer~Beware" a weak MWE of two single words
VIS = (
    "reviews-1-0001\tI|PRON had_ a|DET routine|ADJ _surgery|V.LVC.full-v.social for|P-p.Purpose an|DET "
    "ingrown_toenail|N-n.BODY .|PUNCT\n"
    "reviews-1-0002\tBuyer|N-n.PERSON~Beware|V-v.cognition from|P-p.Source:p.Locus cars|N-n.ARTIFACT !!|PUNCT\n"
)

JSON = [
    {"sent_id": "reviews-1-0001",
     "toks": [{"word": w} for w in "I had a routine surgery for an ingrown toenail .".split()],
     "swes": {"1": {"lexlemma": "I", "lexcat": "PRON", "ss": None, "ss2": None, "toknums": [1]},
              "6": {"lexlemma": "for", "lexcat": "P", "ss": "p.Purpose", "ss2": "p.Purpose", "toknums": [6]}},
     "smwes": {"1": {"lexlemma": "have surgery", "lexcat": "V.LVC.full", "ss": "v.social", "toknums": [2, 5]}}},
    {"sent_id": "reviews-1-0002",
     "toks": [{"word": w} for w in "Buyer Beware from cars !!".split()],
     "swes": {"1": {"lexlemma": "buyer", "lexcat": "N", "ss": "n.PERSON", "ss2": None, "toknums": [1]},
              "2": {"lexlemma": "beware", "lexcat": "V", "ss": "v.cognition", "ss2": None, "toknums": [2]},
              "3": {"lexlemma": "from", "lexcat": "P", "ss": "p.Source", "ss2": "p.Locus", "toknums": [3]},
              "4": {"lexlemma": "car", "lexcat": "N", "ss": "n.ARTIFACT", "ss2": None, "toknums": [4]}}},
]


def _row(i, word, smwe="_", lexcat="_", lexlemma="_", ss="_", ss2="_"):
    return "\t".join([str(i), word, word.lower(), "X", "X", "_", "0", "dep", "_", "_",
                      smwe, lexcat, lexlemma, ss, ss2, "_", "_", "_", "O"])


CONLLULEX = "\n".join([
    "# sent_id = reviews-1-0001",
    _row(1, "I", lexcat="PRON", lexlemma="I"), _row(2, "had", smwe="1:1", lexcat="V.LVC.full", lexlemma="have surgery", ss="v.social"),
    _row(3, "a"), _row(4, "routine"), _row(5, "surgery", smwe="1:2"),
    _row(6, "for", lexcat="P", lexlemma="for", ss="p.Purpose", ss2="p.Purpose"),
    _row(7, "an"), _row(8, "ingrown", smwe="2:1", lexcat="N", lexlemma="ingrown toenail", ss="n.BODY"),
    _row(9, "toenail", smwe="2:2"), _row(10, "."), "",
    "# sent_id = reviews-1-0002",
    _row(1, "Buyer", lexcat="N", lexlemma="buyer", ss="n.PERSON"), _row(2, "Beware", lexcat="V", lexlemma="beware", ss="v.cognition"),
    _row(3, "from", lexcat="P", lexlemma="from", ss="p.Source", ss2="p.Locus"),
    _row(4, "cars", lexcat="N", lexlemma="car", ss="n.ARTIFACT"), _row(5, "!!"), "", ""])

EXPECTED = {
    ("reviews-1-0001", 5, "p", "p.Purpose"),
    ("reviews-1-0002", 0, "n", "n.PERSON"), ("reviews-1-0002", 1, "v", "v.cognition"),
    ("reviews-1-0002", 2, "p", "p.Source"), ("reviews-1-0002", 3, "n", "n.ARTIFACT"),
}


def _key(inst):
    return (inst.sent_id, inst.index, inst.pos, inst.label)


def test_vis_line_tokens_and_single_words():
    sent_id, tokens, singles = parse_vis_line(VIS.splitlines()[0])
    assert sent_id == "reviews-1-0001"
    assert tokens == tuple("I had a routine surgery for an ingrown toenail .".split())
    assert [(i, lexcat) for i, lexcat, _ in singles] == [(0, "PRON"), (2, "DET"), (3, "ADJ"), (5, "P"), (6, "DET"), (9, "PUNCT")]


def test_three_formats_agree(tmp_path):
    (tmp_path / "a.vis").write_text(VIS)
    with gzip.open(tmp_path / "a.json.gz", "wt") as f:
        json.dump(JSON, f)
    (tmp_path / "a.conllulex").write_text(CONLLULEX)
    vis = read_streusle_vis(tmp_path / "a.vis", "train", lemmatize=False)
    js = read_streusle_json(tmp_path / "a.json.gz", "dev")
    cx = read_streusle_conllulex(tmp_path / "a.conllulex", "test")
    assert set(map(_key, vis)) == set(map(_key, js)) == set(map(_key, cx)) == EXPECTED
    assert {i.tokens for i in vis} == {i.tokens for i in js} == {i.tokens for i in cx}
    assert {i.split for i in vis} == {"train"} and vis[0].doc_id == "reviews-1"
    assert [i.lemma for i in vis][-1] == "cars"  # no lemmatizer asked for: lower case


class FakeWordNet:
    """Stands in for NLTK WordNet (loading the real one takes tens of seconds)."""

    def _morphy(self, form, pos):
        return [form, form[:-1]] if form.endswith("s") else [form]


@pytest.fixture()
def fake_wordnet(monkeypatch):
    from lexprobe.data import streusle

    monkeypatch.setattr(streusle, "_wordnet", lambda: FakeWordNet())
    monkeypatch.setattr(streusle, "_lemma", functools.lru_cache(None)(streusle._lemma.__wrapped__))


def test_split_directory_and_errors(tmp_path, fake_wordnet):
    for split in ("train", "dev", "test"):
        (tmp_path / split).mkdir()
    (tmp_path / "train" / "x.vis").write_text(VIS)
    (tmp_path / "dev" / "x.json").write_text(json.dumps(JSON))
    with pytest.raises(DataError, match="no STREUSLE test file"):
        streusle_instances(tmp_path)
    (tmp_path / "test" / "x.conllulex").write_text(CONLLULEX)
    insts = streusle_instances(tmp_path)
    assert len(insts) == 15 and len(read_split(tmp_path, "dev")) == 5
    # one lemmatizer for every split, so train and dev/test pool alike
    assert {i.lemma for i in insts if i.word == "cars"} == {"car"}
    with pytest.raises(DataError, match="not found"):
        streusle_instances(tmp_path / "missing")


def test_real_dev_formats_agree(shared_data):
    root = shared_data / "streusle-4.4" / "dev"
    if not root.is_dir():
        pytest.skip(missing_shared("streusle-4.4"))
    js = read_streusle_json(root / "streusle.ud_dev.json.gz", "dev")
    vis = read_streusle_vis(root / "streusle.ud_dev.vis", "dev", lemmatize=False)
    assert len(js) == 1818
    assert set((i.sent_id, i.tokens, i.index, i.label) for i in js) == set(
        (i.sent_id, i.tokens, i.index, i.label) for i in vis)


@pytest.mark.parametrize("split, count", [("dev", 1818), ("test", 1837)])
def test_real_conllulex_matches_json(shared_data, split, count):
    """The conllu-based conllulex reader gives exactly the JSON reader's instances, in order."""
    root = shared_data / "streusle-4.4" / split
    if not root.is_dir():
        pytest.skip(missing_shared("streusle-4.4"))
    cx = read_streusle_conllulex(root / f"streusle.ud_{split}.conllulex.gz", split)
    assert cx == read_streusle_json(root / f"streusle.ud_{split}.json.gz", split)
    assert len(cx) == count and len({i.label for i in cx}) == 76
    if split == "dev":  # hand-checked in the file: "Rusted_out" is a strong MWE, so not a target
        first = {(i.sent_id, i.index): (i.word, i.lemma, i.pos, i.label) for i in cx[:8]}
        assert first[("reviews-001961-0001", 0)] == ("Buyer", "buyer", "n", "n.PERSON")
        assert first[("reviews-001961-0003", 5)] == ("before", "before", "p", "p.Time")
        assert ("reviews-001961-0002", 0) not in first and cx[2].word == "cars"
        assert cx[0].tokens == ("Buyer", "Beware", "!!") and cx[0].doc_id == "reviews-001961"


def test_conllulex_skips_multiword_tokens_and_empty_nodes(tmp_path):
    lines = CONLLULEX.split("\n")
    at = lines.index(_row(2, "had", smwe="1:1", lexcat="V.LVC.full", lexlemma="have surgery", ss="v.social"))
    lines.insert(at, "\t".join(["2-3", "hada"] + ["_"] * 17))
    lines.insert(at + 3, "\t".join(["3.1", "ellided"] + ["_"] * 8))  # an empty node: UD columns only
    (tmp_path / "a.conllulex").write_text("\n".join(lines))
    assert set(map(_key, read_streusle_conllulex(tmp_path / "a.conllulex", "dev"))) == EXPECTED


@pytest.mark.parametrize("bad, message", [
    ("4\troutine\troutine\tX\tX", r"a\.conllulex:5: a line with 5 tab-separated columns; conllulex has 19"),
    ("x" + _row(4, "routine"), r"a\.conllulex:5: expected a token number and a word form .* got 'x4' and 'routine'"),
    ("4routine", r"a\.conllulex:5: .*line must contain either tabs.*; conllulex has 19 tab-separated columns"),
])
def test_conllulex_errors_name_file_and_line(tmp_path, bad, message):
    path = tmp_path / "a.conllulex"
    path.write_text(CONLLULEX.replace(_row(4, "routine"), bad))
    with pytest.raises(DataError, match=message) as err:
        read_streusle_conllulex(path, "dev")
    assert "\n" not in str(err.value)
