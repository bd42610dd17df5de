import pytest

from lexprobe.data import wordnet
from lexprobe.errors import DataError


def test_lexnames_file_has_45_categories():
    lines = wordnet.lexnames_text().splitlines()
    assert len(lines) == 45
    assert lines[3] == "03\tnoun.Tops\t1"
    assert lines[29] == "29\tverb.body\t2"


def test_synset_string_form():
    assert wordnet.synset_string("warm_up.v.04") == "warm up"
    assert wordnet.synset_string("a_cappella_singing.n.01") == "a cappella singing"
    assert wordnet.synset_string("st._john's_wort.n.01") == "st. john's wort"


def test_missing_wordnet_names_where_it_looked(tmp_path, monkeypatch):
    import nltk

    monkeypatch.setattr(wordnet, "DEBIAN_WORDNET_DIRS", (str(tmp_path / "none"),))
    monkeypatch.setenv("LEXPROBE_WORDNET", str(tmp_path / "also-none"))
    monkeypatch.setattr(nltk.data, "path", [str(tmp_path / "empty-nltk-data")])
    wordnet.load_wordnet.cache_clear()
    try:
        with pytest.raises(DataError) as err:
            wordnet.load_wordnet()
    finally:
        wordnet.load_wordnet.cache_clear()
    msg = str(err.value)
    assert "also-none" in msg and "none" in msg and "apt-get install wordnet-base" in msg
    assert "\n" not in msg


def test_debian_wordnet_is_readable():
    if wordnet.wordnet_source_dir() is None:
        pytest.skip("no WordNet dict directory installed")
    wn = wordnet.load_wordnet()
    assert wn.get_version() == "3.0"
    assert wn.synset("beckon.v.01").definition() == "signal with the hands or nod"
    assert wn.lemma_from_key("dog%1:05:00::").synset().name() == "dog.n.01"
