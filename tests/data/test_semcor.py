"""SemCor NAF reader on a small archive written here, and on the real one when present."""

import io
import itertools
import tarfile

import pytest

from lexprobe.data import semcor
from lexprobe.data.semcor import iter_semcor_sentences, semcor_instances
from lexprobe.errors import DataError
from tests.optional import missing_shared

NAF = """<?xml version='1.0' encoding='UTF-8'?>
<NAF>
  <text>
{wfs}
  </text>
  <terms>
{terms}
  </terms>
</NAF>
"""


def _naf(sentences, tagged):
    """sentences: list of token lists; tagged: {(sent, tok): (lemma, pos, lexkey, synset)}."""
    wfs, terms, n = [], [], 0
    for s, toks in enumerate(sentences, start=1):
        for t, tok in enumerate(toks):
            wfs.append(f'    <wf id="w{n}" offset="0" sent="{s}" para="1">{tok}</wf>')
            ann = tagged.get((s, t))
            refs = ""
            if ann:
                lemma, pos, key, synset = ann
                refs = (
                    "<externalReferences>"
                    f'<externalRef reference="1" resource="WordNet-eng30" reftype="sense_number"/>'
                    f'<externalRef reference="{key}" resource="WordNet-eng30" reftype="lexical_key"/>'
                    f'<externalRef resource="WordNet-eng30" reference="{synset}" reftype="synset"/>'
                    "</externalReferences>"
                )
            else:
                lemma, pos = tok.lower(), "DT"
            terms.append(f'    <term id="t{n}" pos="{pos}" lemma="{lemma}"><span><target id="w{n}"/></span>{refs}</term>')
            n += 1
    return NAF.format(wfs="\n".join(wfs), terms="\n".join(terms)).encode()


def _archive(path, docs):
    with tarfile.open(path, "w:xz") as tar:
        for name, data in docs.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


@pytest.fixture()
def small_archive(tmp_path):
    docs = {}
    for d in range(5):
        docs[f"semcor3.0/brown1/br-x{d}.naf"] = _naf(
            [["The", "bank", "closed", "."], ["He", "took_place", "at", "the", "bank"]],
            {
                (1, 1): ("bank", "NN", "1:14:00::", "eng30-99999999-n"),  # wrong synset: must be ignored
                (1, 2): ("close", "VB", "2:30:00::", "eng30-00000000-v"),
                (2, 1): ("take_place", "VB", "2:30:00::", "eng30-1-v"),
                (2, 4): ("bank", "NN", "1:17:01::", "eng30-2-n"),
            },
        )
    return _archive(tmp_path / "semcor.tar.xz", docs)


def test_reads_tokens_and_sense_keys(small_archive):
    sents = list(iter_semcor_sentences(small_archive))
    assert len(sents) == 10
    s1, s2 = sents[0], sents[1]
    assert s1.doc_id == "brown1/br-x0" and s1.sent_id == "1"
    assert s1.tokens == ("The", "bank", "closed", ".")
    assert [(a.index, a.lemma, a.pos, a.sense_key) for a in s1.annotations] == [
        (1, "bank", "NN", "bank%1:14:00::"), (2, "close", "VB", "close%2:30:00::")]
    assert s2.tokens[1] == "took place"  # SemCor's MWE underscore becomes a space
    assert [(a.index, a.multiword) for a in s2.annotations] == [(1, True), (4, False)]
    assert s1.annotations[0].wn_pos == "n"


def _etree_reference(path):
    """Plain ElementTree reading of the archive: the reference for the regex parser."""
    import xml.etree.ElementTree as ET

    out = []
    with tarfile.open(path) as tar:
        for m in tar:
            if not m.name.endswith(".naf"):
                continue
            root = ET.parse(tar.extractfile(m)).getroot()
            doc = "/".join(m.name.split("/")[-2:])[:-4]
            where, sents = {}, {}
            for wf in root.iter("wf"):
                toks = sents.setdefault(wf.get("sent"), [])
                where[wf.get("id")] = (wf.get("sent"), len(toks))
                toks.append(wf.text)
            anns = {k: [] for k in sents}
            for term in root.iter("term"):
                keys = [r.get("reference") for r in term.iter("externalRef") if r.get("reftype") == "lexical_key"]
                numbers = [r.get("reference") for r in term.iter("externalRef") if r.get("reftype") == "sense_number"]
                if keys:
                    targets = [t.get("id") for t in term.iter("target")]
                    sent, i = where[targets[0]]
                    multi = len(targets) > 1 or "_" in sents[sent][i]
                    anns[sent].append((i, term.get("lemma"), term.get("pos"), f"{term.get('lemma')}%{keys[0]}", multi,
                                       (numbers or [""])[0]))
            for sent, toks in sents.items():
                out.append((doc, sent, tuple(t.replace("_", " ") for t in toks), sorted(anns[sent])))
    return out


def test_regex_parser_matches_elementtree(tmp_path):
    tricky = _naf([["Salt", "&amp;", "pepper", "ran"]], {(1, 3): ("run", "VB", "2:38:00::", "x")})
    # attribute order, self-closing variants and a two-target (discontinuous) term
    tricky = tricky.replace(b'<wf id="w0" offset="0" sent="1" para="1">', b'<wf sent="1" id="w0" para="1">')
    tricky = tricky.replace(b'<span><target id="w2"/></span>', b'<span><target id="w2"/><target id="w1"/></span>'
                            b'<externalReferences><externalRef reftype="lexical_key" resource="x" '
                            b'reference="1:13:00::"/></externalReferences>')
    path = _archive(tmp_path / "t.tar.xz", {"semcor3.0/brownv/br-t1.naf": tricky})
    got = [(s.doc_id, s.sent_id, s.tokens, sorted(tuple(a) for a in s.annotations))
           for s in iter_semcor_sentences(path)]
    assert got == _etree_reference(path)
    assert got[0][2] == ("Salt", "&", "pepper", "ran")
    assert got[0][3] == [(2, "pepper", "DT", "pepper%1:13:00::", True, ""), (3, "run", "VB", "run%2:38:00::", False, "1")]


def test_cache_makes_second_pass_skip_parsing(small_archive, monkeypatch):
    first = list(iter_semcor_sentences(small_archive))

    def boom(path):
        raise AssertionError("archive parsed again")

    monkeypatch.setattr(semcor, "_parse_archive", boom)
    assert list(iter_semcor_sentences(small_archive)) == first


def test_missing_archive_names_path_and_fix(tmp_path, monkeypatch):
    missing = tmp_path / "nope.tar.xz"
    with pytest.raises(DataError, match="nope.tar.xz.*LEXPROBE_SEMCOR"):
        list(iter_semcor_sentences(missing))
    monkeypatch.setenv("LEXPROBE_SEMCOR", str(missing))
    with pytest.raises(DataError, match="nope.tar.xz"):
        list(iter_semcor_sentences())


def test_instances_single_token_and_document_split(small_archive):
    insts = semcor_instances(small_archive, seed=3, train_fraction=0.6)
    assert len(insts) == 5 * 3  # took_place (multi-word) is not an instance
    assert {i.label for i in insts} == {"bank%1:14:00::", "close%2:30:00::", "bank%1:17:01::"}
    by_doc = {}
    for i in insts:
        by_doc.setdefault(i.doc_id, set()).add(i.split)
    assert all(len(s) == 1 for s in by_doc.values())  # a document is wholly train or test
    assert sum(s == {"train"} for s in by_doc.values()) == 3
    assert [i.split for i in insts] == [i.split for i in semcor_instances(small_archive, seed=3, train_fraction=0.6)]
    i = insts[0]
    assert i.text[slice(*i.char_span())] == "bank"


def test_real_archive_first_document(shared_data):
    path = shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz"
    if not path.is_file():
        pytest.skip(missing_shared("semcor3.0/semcor3.0_naf.tar.xz"))
    first_doc = list(itertools.takewhile(lambda s: s.doc_id == "brown1/br-a01", semcor._parse_archive(path)))
    assert first_doc[0].tokens[:3] == ("The", "Fulton County Grand Jury", "said")
    assert first_doc[0].annotations[1].sense_key == "say%2:32:00::"
    assert sum(len(s.annotations) for s in first_doc) == 1024  # lexical_key refs in br-a01


@pytest.mark.slow
def test_real_archive_counts(shared_data, monkeypatch):
    """352 documents and 234,136 sense-tagged terms (uses the user's cache: ~60 s when cold)."""
    from pathlib import Path

    path = shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz"
    if not path.is_file():
        pytest.skip(missing_shared("semcor3.0/semcor3.0_naf.tar.xz"))
    monkeypatch.setenv("LEXPROBE_CACHE", str(Path.home() / ".cache" / "lexprobe"))
    counts = semcor.count_semcor(path)
    assert counts["documents"] == 352
    assert counts["tagged_terms"] == 234_136
    assert counts["tagged_terms"] - counts["multiword_terms"] == 217_343
