"""OntoNotes CoNLL-2012 reader on small files written here."""

import pytest

from lexprobe.data.ontonotes import read_ontonotes, sense_label
from lexprobe.errors import DataError


def _line(doc, i, word, pos, lemma="-", sense="-"):
    return f"{doc} 0 {i} {word} {pos} * {lemma} - {sense} speaker * * -"


DOC = "\n".join([
    "#begin document (nw/wsj/00/wsj_0001); part 000",
    _line("nw/wsj/00/wsj_0001", 0, "He", "PRP"),
    _line("nw/wsj/00/wsj_0001", 1, "filed", "VBD", "file", "5"),
    _line("nw/wsj/00/wsj_0001", 2, "a", "DT"),
    _line("nw/wsj/00/wsj_0001", 3, "report", "NN", "report", "1.1"),
    "",
    _line("nw/wsj/00/wsj_0001", 0, "Reports", "NNS", "report", "2"),
    _line("nw/wsj/00/wsj_0001", 1, "came", "VBD", "come", "-"),
    _line("nw/wsj/00/wsj_0001", 2, "fast", "RB", "fast", "1"),  # not a noun or verb: kept (authors' reader)
    "",
    "#end document",
    "",
])


def _tree(tmp_path):
    for split in ("train", "development", "test"):
        d = tmp_path / "conll-2012" / "v4" / "data" / split / "data" / "english" / "annotations" / "nw"
        d.mkdir(parents=True)
        (d / "wsj_0001.gold_conll").write_text(DOC)
    return tmp_path / "conll-2012"


def test_reads_senses_splits_and_marks_nota(tmp_path):
    root = _tree(tmp_path)
    insts = read_ontonotes(root, nota={"file_v_5.0"})
    assert {i.split for i in insts} == {"train", "dev", "test"}
    train = [i for i in insts if i.split == "train"]
    assert [(i.sent_id, i.index, i.lemma, i.pos, i.label, i.query) for i in train] == [
        ("0", 1, "file", "v", "file_v_5.0", False),  # none of the above: a candidate, never a query
        ("0", 3, "report", "n", "report_n_1.1", True), ("1", 0, "report", "n", "report_n_2.0", True),
        ("1", 2, "fast", "x", "fast_x_1.0", True)]
    assert train[0].doc_id == "nw/wsj/00/wsj_0001"
    assert train[0].tokens == ("He", "filed", "a", "report")
    kept = read_ontonotes(root, nota=set())
    assert all(i.query for i in kept)


def test_default_nota_list_is_the_papers(shared_data):
    from lexprobe.data.ontonotes import load_nota_senses

    nota = load_nota_senses(shared_data / "pdep" / "ontonotes_nota_senses.txt")
    assert "file_n_5.0" in nota and sense_label("file", "n", "5") == "file_n_5.0"


def test_errors(tmp_path):
    with pytest.raises(DataError, match="not found"):
        read_ontonotes(tmp_path / "missing")
    (tmp_path / "x.gold_conll").write_text(DOC)
    with pytest.raises(DataError, match="split"):
        read_ontonotes(tmp_path / "x.gold_conll")
    (tmp_path / "empty").mkdir()
    with pytest.raises(DataError, match="no CoNLL-2012 files"):
        read_ontonotes(tmp_path / "empty")
