"""The SemCor sample shipped in the package: small, with its licences, and true to the corpus."""

import itertools
import tarfile

from lexprobe.data import semcor
from lexprobe.data.semcor import sample_archive, semcor_instances


def test_sample_is_small_package_data_with_licences():
    path = sample_archive()
    assert path.is_file() and path.stat().st_size < 400_000
    names = {p.name for p in path.parent.iterdir()}
    assert {"LICENSE-semcor-WordNet-3.0.txt", "LICENSE-wsd_corpora-Apache-2.0.txt", "README.md"} <= names
    with tarfile.open(path) as tar:
        docs = [m.name for m in tar if m.isfile()]
    assert len(docs) == 352 and all(d.startswith("semcor3.0/brown") for d in docs)
    insts = semcor_instances(path, seed=0)
    assert len(insts) == 12_747 and {i.split for i in insts} == {"train", "test"}


def test_sample_sentences_are_the_corpus_sentences(shared_data):
    """Tokens, sense keys and the document split of the sample's sentences match the full archive
    (checked on its first three documents, read straight from the real archive)."""
    full_archive = shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz"
    sample = list(semcor.iter_semcor_sentences(sample_archive()))
    first_docs = sorted({s.doc_id for s in sample})[:3]
    members = itertools.islice(semcor.iter_naf_members(full_archive), 3)
    full = {}
    for name, data in members:
        doc = "/".join(name.split("/")[-2:])[:-4]
        for s in semcor._parse_document(doc, data.decode()):
            full[(s.doc_id, s.sent_id)] = s
    assert first_docs == sorted({d for d, _ in full})
    checked = 0
    for s in sample:
        if s.doc_id in first_docs:
            ref = full[(s.doc_id, s.sent_id)]
            assert s.tokens == ref.tokens
            # the sample keeps no sense_number (only the authors' SemCor path reads it)
            assert s.annotations == tuple(a._replace(sense_number="") for a in ref.annotations if not a.multiword)
            checked += 1
    assert checked >= 3
