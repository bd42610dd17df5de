"""Corpus registry errors and the instance model."""

import pytest

from lexprobe.data.corpora import CORPORA, load_corpus
from lexprobe.data.instances import SenseInstance, token_char_spans, validate
from lexprobe.errors import DataError


def test_unknown_and_missing_corpora():
    with pytest.raises(DataError, match="unknown corpus 'wsj'.*semcor"):
        load_corpus("wsj")
    with pytest.raises(DataError, match="--path"):
        load_corpus("ontonotes")
    with pytest.raises(DataError, match="not found"):
        load_corpus("pdep", "/nonexistent/pdep")
    assert set(CORPORA) == {"semcor", "ontonotes", "pdep", "streusle"}


def test_instance_offsets_and_marking():
    inst = SenseInstance("d", ("I", "sat", "by", "the", "bank", "."), 4, "bank", "n", "bank_1", "test", "3")
    assert inst.char_span() == (13, 17) and inst.text[13:17] == "bank"
    assert inst.marked() == "I sat by the >>bank<< ."
    assert token_char_spans(["a", "bc"]) == [(0, 1), (2, 4)]
    validate(inst)
    with pytest.raises(ValueError):
        validate(SenseInstance("d", ("a",), 3, "a", "n", "x", "train"))


def test_where_names_the_variable_that_chose_the_location(monkeypatch, tmp_path):
    """The message of an empty corpus says where it was read; with LEXPROBE_SEMCOR set this raised
    NameError (``os`` was not imported) instead of the one-line error."""
    from lexprobe.data.corpora import _where

    monkeypatch.setenv("LEXPROBE_SEMCOR", str(tmp_path / "semcor.tar.xz"))
    assert _where("semcor", None) == f"{tmp_path / 'semcor.tar.xz'} (set by LEXPROBE_SEMCOR)"
    assert _where("semcor", "x") == "x (--path)"
