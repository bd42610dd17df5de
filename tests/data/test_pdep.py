"""PDEP CoNLL-U reader on small files written here."""

import pytest

from lexprobe.data.pdep import pdep_definitions, read_pdep
from lexprobe.errors import DataError
from tests.optional import missing_shared


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
    with pytest.raises(DataError, match=r"bad_train\.conllu:1: a line with 3 tab-separated columns; CoNLL-U has 10"):
        read_pdep(tmp_path / "bad_train.conllu")


@pytest.mark.parametrize("bad, message", [
    ("\t".join(["4", "on", "on"] + ["_"] * 8), r"x_train\.conllu:6: a line with 11 tab-separated columns"),
    (_tok(4, "", "on"), r"x_train\.conllu:6: expected a token number and a word form .* got '4' and ''"),
    (_tok("four", "on", "on"), r"x_train\.conllu:6: expected a token number and a word form .* got 'four' and 'on'"),
    ("4 on", r"x_train\.conllu:6: .*line must contain either tabs.*; CoNLL-U has 10 tab-separated columns"),
])
def test_malformed_lines_name_file_and_line(tmp_path, bad, message):
    path = tmp_path / "x_train.conllu"
    path.write_text(CONLLU.replace(_tok(4, "on", "on", "Sense=20(8)"), bad))
    with pytest.raises(DataError, match=message) as err:
        read_pdep(path)
    assert "\n" not in str(err.value)


def test_multiword_tokens_and_empty_nodes_are_skipped(tmp_path):
    lines = CONLLU.split("\n")
    lines.insert(3, "\t".join(["2-3", "wasthere"] + ["_"] * 8))
    lines.insert(6, "\t".join(["3.1", "ellided"] + ["_"] * 8))
    (tmp_path / "pdep_train.conllu").write_text("\n".join(lines))
    insts = read_pdep(tmp_path / "pdep_train.conllu")
    assert [(i.sent_id, i.index, i.label) for i in insts] == [("7", 3, "on_20(8)"), ("2", 1, "under_1(1)")]
    assert insts[0].tokens == ("I", "was", "there", "on", "Monday")


def test_cli_one_line_for_a_malformed_file(tmp_path, capsys):
    from lexprobe.cli import main

    corpus = tmp_path / "pdep"  # the output beside the corpus folder: none may lie inside an input folder (#33)
    corpus.mkdir()
    (corpus / "pdep_train.conllu").write_text(CONLLU.replace("\tMonday\t", "\tMonday\t_\t"))
    code = main(["senserank", "eval", "--corpus", "pdep", "--path", str(corpus), "--model", "random",
                 "--out", str(tmp_path / "r.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "pdep_train.conllu:7: a line with 11 tab-separated columns" in err and "\n" not in err


def test_real_sentences_as_pdep(shared_data, tmp_path):
    """STREUSLE dev's real CoNLL-U columns (MISC with SpaceAfter=No etc.), each single-word
    preposition given ``Sense=<supersense>``: read_pdep finds exactly those prepositions."""
    import gzip

    src = shared_data / "streusle-4.4" / "dev" / "streusle.ud_dev.conllulex.gz"
    if not src.is_file():
        pytest.skip(missing_shared("streusle-4.4"))
    out, expected, tokens, sent_id = [], [], [], ""
    for line in gzip.decompress(src.read_bytes()).decode("utf-8").split("\n"):
        cols = line.split("\t")
        if len(cols) < 19:
            if line.startswith("# sent_id = "):
                sent_id = line[len("# sent_id = "):]
            if not line:
                tokens = []
            out.append(line)
            continue
        tokens.append(cols[1])
        if cols[11] == "P" and cols[10] == "_" and cols[13] != "_":
            misc = "Sense=" + cols[13] if cols[9] == "_" else cols[9] + "|Sense=" + cols[13]
            cols[9] = misc
            expected.append((sent_id, len(tokens) - 1, cols[1], f"{cols[2]}_{cols[13]}"))
        out.append("\t".join(cols[:10]))
    (tmp_path / "pdep_dev.conllu").write_text("\n".join(out), encoding="utf-8")
    insts = read_pdep(tmp_path)
    assert len(expected) > 300 and [(i.sent_id, i.index, i.word, i.label) for i in insts] == expected
    assert {i.split for i in insts} == {"dev"} and all(i.tokens[i.index] == i.word for i in insts)


def test_definitions(shared_data):
    defs = pdep_definitions(shared_data / "pdep" / "prepdefs.sqlite")
    assert defs[("'gainst", "1(1)")] == "in opposition to"
