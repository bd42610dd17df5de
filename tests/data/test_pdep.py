"""PDEP CoNLL-U reader on small files written here."""

import pytest

from lexprobe.data.pdep import pdep_definitions, read_pdep
from lexprobe.errors import DataError


def _tok(i, form, lemma, misc="_"):
    return "\t".join([str(i), form, lemma, "ADP" if misc != "_" else "X", "_", "_", "0", "dep", "_", misc])


CONLLU = "\n".join([
    "# sent_id = 7", "# prep_id = 4",
    _tok(1, "I", "I"), _tok(2, "was", "be"), _tok(3, "there", "there"), _tok(4, "on", "on", "Sense=20(8)"),
    _tok(5, "Monday", "Monday"), "",
    "# prep_id = 2",
    _tok(1, "Sit", "sit"), _tok(2, "Under", "under", "SpaceAfter=No|Sense=1(1)"), _tok(3, "it", "it"), "", ""])


def test_reads_sense_from_misc_and_split_from_name(tmp_path):
    (tmp_path / "pdep_train.conllu").write_text(CONLLU)
    (tmp_path / "pdep_test.conllu").write_text(CONLLU)
    insts = read_pdep(tmp_path)
    assert sorted({i.split for i in insts}) == ["test", "train"]
    train = [i for i in insts if i.split == "train"]
    assert [(i.sent_id, i.index, i.word, i.lemma, i.pos, i.label) for i in train] == [
        ("7", 3, "on", "on", "p", "on_20(8)"), ("2", 1, "Under", "under", "p", "under_1(1)")]


def test_errors(tmp_path):
    with pytest.raises(DataError, match="not found"):
        read_pdep(tmp_path / "none.conllu")
    (tmp_path / "corpus.conllu").write_text(CONLLU)
    with pytest.raises(DataError, match="split"):
        read_pdep(tmp_path / "corpus.conllu")
    (tmp_path / "bad_train.conllu").write_text("1\tonly\tthree\n\n")
    with pytest.raises(DataError, match="10"):
        read_pdep(tmp_path / "bad_train.conllu")


def test_definitions(shared_data):
    defs = pdep_definitions(shared_data / "pdep" / "prepdefs.sqlite")
    assert defs[("'gainst", "1(1)")] == "in opposition to"
