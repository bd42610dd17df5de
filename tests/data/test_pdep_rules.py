"""The PDEP corpus rules (48 prepositions, sense and offset filters) on small files written here."""

import sqlite3

from lexprobe.data.pdep import read_pdep
from lexprobe.data.pdep_rules import PDEP_PREPOSITIONS, convert_prepcorp, filter_pdep_instances, rejection


def _row(inst, prep, sense, sentence, preploc, source="fn"):
    return {"inst": inst, "prep": prep, "sense": sense, "sentence": sentence, "preploc": preploc, "source": source}


ROWS = [
    _row(1, "on", "20(8)", "I was there on Monday .", 12),  # kept
    _row(2, "In", "3(1b)", "In the end it worked", 0),  # kept: capitalised "in" is among the 48
    _row(3, "on", "unk", "I was there on Monday .", 12),  # excluded sense
    _row(4, "on", "", "I was there on Monday .", 12),  # empty sense
    _row(5, "out of", "1(1)", "He ran out of time", 7),  # multi-word
    _row(577203, "on", "1(1)", "I was there on Monday .", 12),  # the malformed instance
    _row(7, "amid", "1(1)", "He stood amid ruins", 9),  # not among the 48
    _row(8, "on", "2(1)", "I was there on Monday .", 3),  # offset points at "was"
    _row(9, "with", "1(1)", "Come along with", 11),  # preposition ends the sentence: kept
]


def test_hand_checked_rules():
    assert len(PDEP_PREPOSITIONS) == 48 and "in" in PDEP_PREPOSITIONS and "amid" not in PDEP_PREPOSITIONS
    assert [rejection(r) for r in ROWS] == [
        None, None, "excluded sense", "excluded sense", "multi-word preposition", "malformed instance",
        "preposition not among the 48", "offset does not point at the preposition", None]


def _prepcorp(path, rows):
    with sqlite3.connect(path) as con:
        con.execute("CREATE TABLE prepcorp (inst INTEGER, prep TEXT, sense TEXT, sentence TEXT, preploc INTEGER, "
                    "source TEXT)")
        con.executemany("INSERT INTO prepcorp VALUES (:inst, :prep, :sense, :sentence, :preploc, :source)", rows)
    return path


def test_convert_then_read_then_filter(tmp_path):
    train, test, counts = convert_prepcorp(ROWS * 2, seed=0)
    assert counts["kept"] == 6 and counts["excluded sense"] == 4
    (tmp_path / "pdep_train.conllu").write_text(train)
    (tmp_path / "pdep_test.conllu").write_text(test)
    insts = read_pdep(tmp_path)
    assert len(insts) == 6 and sum(i.split == "train" for i in insts) == 4  # int(6 * 0.8)
    on = next(i for i in insts if i.lemma == "on")
    assert on.tokens == ("I", "was", "there", "on", "Monday", ".") and on.index == 3 and on.label == "on_20(8)"
    assert next(i for i in insts if i.lemma == "with").tokens == ("Come", "along", "with")
    # the same rules on a corpus converted elsewhere: a written file with bad prepositions and senses
    extra = "\n".join([
        "# sent_id = a", "1\tSit\t_\t_\t_\t_\t_\t_\t_\t_", "2\tamid\tamid\t_\t_\t_\t_\t_\t_\tSense=1(1)", "",
        "# sent_id = b", "1\tSit\t_\t_\t_\t_\t_\t_\t_\t_", "2\ton\ton\t_\t_\t_\t_\t_\t_\tSense=pv", "",
        "# sent_id = c", "1\tSit\t_\t_\t_\t_\t_\t_\t_\t_", "2\ton\ton\t_\t_\t_\t_\t_\t_\tSense=1(1)", "", ""])
    (tmp_path / "more_train.conllu").write_text(extra)
    kept, why = filter_pdep_instances(read_pdep(tmp_path))
    assert len(kept) == 7 and why["preposition not among the 48"] == 1 and why["excluded sense"] == 1


def test_pdep_convert_cli(tmp_path, capsys):
    from lexprobe.cli import main

    db = _prepcorp(tmp_path / "prepcorp.sqlite", ROWS)
    out = tmp_path / "pdep"
    assert main(["senserank", "pdep-convert", "--prepcorp", str(db), "--out", str(out)]) == 0
    assert "kept: 3" in capsys.readouterr().out
    assert len(read_pdep(out)) == 3
    assert main(["senserank", "pdep-convert", "--prepcorp", str(tmp_path / "missing.sqlite"), "--out", str(out)]) == 2
    assert "not found" in capsys.readouterr().err


#: ``WHITELIST`` of the authors' scripts/format_pdep.py at HEAD (d12dcfe), lines 18-65, in file
#: order; ``'in'`` (line 41) was added by commit dbcc9d3 "forgot in" before the corpus files were committed
FORMAT_PDEP_WHITELIST = [
    "about", "above", "across", "after", "against", "among", "around", "as", "at", "before", "behind", "below",
    "beneath", "beside", "besides", "between", "beyond", "circa", "despite", "during", "except", "for", "from",
    "in", "including", "inside", "into", "near", "of", "off", "on", "onto", "over", "per", "since", "than",
    "through", "to", "toward", "towards", "under", "until", "unto", "up", "upon", "via", "with", "without",
]


def test_prepositions_are_format_pdep_whitelist():
    assert len(FORMAT_PDEP_WHITELIST) == 48 and FORMAT_PDEP_WHITELIST.index("in") == 41 - 18
    assert PDEP_PREPOSITIONS == frozenset(FORMAT_PDEP_WHITELIST)
