"""The WSD framework: reader (data/wsd.py), WordNet candidates (data/wsd_senses.py), the data registry's `wsd`
(import, fetch from a local mirror), and the baselines on the real sets (through ``imported_data``)."""

from __future__ import annotations

import shutil
import threading
import time
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data import registry, store
from lexprobe.data.wsd import (
    ALL,
    NAMES,
    PUBLISHED_COUNTS,
    SETS,
    WsdInstance,
    check_file,
    check_framework,
    load_wsd,
    read_key_file,
    read_wsd,
)
from lexprobe.errors import DataError

XML = """<?xml version="1.0" encoding="UTF-8" ?>
<corpus lang="en" source="senseval2">
<text id="d000">
<sentence id="d000.s000">
<wf lemma="the" pos="DET">The</wf>
<instance id="d000.s000.t000" lemma="art" pos="NOUN">art</instance>
<wf lemma="of" pos="ADP">of</wf>
<instance id="d000.s000.t001" lemma="change_ringing" pos="NOUN">change-ringing</instance>
<wf lemma="be" pos="VERB">is</wf>
<instance id="d000.s000.t002" lemma="peculiar" pos="ADJ">peculiar</instance>
<wf lemma="." pos=".">.</wf>
</sentence>
<sentence id="d000.s001">
<wf lemma="he" pos="PRON">He</wf>
<instance id="d000.s001.t000" lemma="run" pos="VERB">ran</instance>
<instance id="d000.s001.t001" lemma="quickly" pos="ADV">quickly</instance>
<wf lemma="&apos;s" pos="PRT">&apos;s</wf>
</sentence>
</text>
</corpus>
"""
GOLD = """d000.s000.t000 art%1:09:00::
d000.s000.t001 change_ringing%1:04:00::
d000.s000.t002 peculiar%5:00:00:specific:00 peculiar%5:00:00:characteristic:00
d000.s001.t000 run%2:38:00::
d000.s001.t001 quickly%4:02:00::
"""


def write_pair(folder: Path, xml: str = XML, gold: str = GOLD, name: str = "senseval2") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.data.xml").write_text(xml, encoding="utf-8")
    (folder / f"{name}.gold.key.txt").write_text(gold, encoding="utf-8")
    return folder / f"{name}.data.xml"


def test_reads_the_instance_model(tmp_path):
    instances = read_wsd(write_pair(tmp_path))
    assert [i.id for i in instances] == ["d000.s000.t000", "d000.s000.t001", "d000.s000.t002", "d000.s001.t000",
                                         "d000.s001.t001"]
    ring = instances[1]
    # a file of one's own named as an official set is not reported as that set (only the pinned files are)
    assert ring == WsdInstance("d000.s000.t001", "senseval2-own", "d000", "d000.s000", "change_ringing", "N",
                               ("The", "art", "of", "change-ringing", "is", "peculiar", "."), 3,
                               ("change_ringing%1:04:00::",))
    assert ring.word == "change-ringing" and ring.text[slice(*ring.char_span())] == "change-ringing"
    assert ring.qualified_id == "d000.s000.t001" and ring.wordnet_pos == "n"
    assert ring.where == f"{tmp_path / 'senseval2.gold.key.txt'}:2"
    assert instances[2].gold == ("peculiar%5:00:00:specific:00", "peculiar%5:00:00:characteristic:00")
    assert [i.pos for i in instances] == ["N", "N", "A", "V", "R"]
    assert instances[4].tokens == ("He", "ran", "quickly", "'s")  # a predefined entity is text, not a declaration
    assert load_wsd(tmp_path / "senseval2.data.xml") == instances  # a file of one's own, its gold beside it


def _line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


@pytest.mark.parametrize("change, message", [
    (("<wf lemma=\"of\" pos=\"ADP\">of</wf>", "<w>of</w>"), "<w> inside <sentence>"),
    (('pos="ADJ"', 'pos="ADJECTIVE"'), "has pos 'ADJECTIVE'"),
    ((' lemma="art"', ""), "has no lemma"),
    (('id="d000.s001.t001"', 'id="d000.s000.t000"'), "used twice"),
    ((">ran<", "> <"), "an empty <instance>"),
    (("<sentence id=\"d000.s001\">", "<sentence>"), "<sentence> has no id attribute"),
    (('id="d000.s001.t000"', 'id="d000 s001"'), "holds whitespace"),
    (("</wf>\n</sentence>\n</text>", "</wf>\n</sentence>\nstray\n</text>"), "outside a <wf> or <instance>"),
])
def test_malformed_xml_is_one_line_naming_file_and_line(tmp_path, change, message):
    old, new = change
    xml = XML.replace(old, new, 1)
    assert xml != XML
    path = write_pair(tmp_path, xml)
    with pytest.raises(DataError, match=message) as err:
        read_wsd(path)
    text = str(err.value)
    assert "\n" not in text and text.startswith(f"{path}:")
    changed = next(k for k, (a, b) in enumerate(zip(xml, XML)) if a != b)
    line = int(text[len(str(path)) + 1:].split(":", 1)[0])
    assert abs(line - (xml[:changed].count("\n") + 1)) <= 1, text


def test_not_well_formed_xml_names_its_line(tmp_path):
    xml = XML.replace("</sentence>\n<sentence", "</sentenc>\n<sentence", 1)
    path = write_pair(tmp_path, xml)
    with pytest.raises(DataError, match=rf"{path}:{_line_of(xml, '</sentenc>')}: malformed XML"):
        read_wsd(path)


@pytest.mark.parametrize("declaration", [
    '<!DOCTYPE corpus [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">'
    '<!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>',
    '<!DOCTYPE corpus [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE corpus SYSTEM "http://127.0.0.1:9/corpus.dtd">',
])
def test_no_dtd_no_entity_is_ever_expanded(tmp_path, declaration):
    xml = XML.replace('<corpus lang', declaration + '\n<corpus lang', 1)
    if "ENTITY" in declaration:  # the entity used where the reader takes text
        xml = xml.replace(">art<", ">&d;<" if "&a;" in declaration else ">&x;<", 1)
    path = write_pair(tmp_path, xml)
    started = time.time()
    with pytest.raises(DataError, match=r"DTDs and entity declarations are refused") as err:
        read_wsd(path)
    assert time.time() - started < 5 and "\n" not in str(err.value) and str(err.value).startswith(f"{path}:2:")


def test_gold_and_data_must_match(tmp_path):
    path = write_pair(tmp_path, gold="\n".join(GOLD.splitlines()[:-1]) + "\n")
    with pytest.raises(DataError, match=r"senseval2.data.xml:\d+: instance 'd000.s001.t001' has no line in .*gold"):
        read_wsd(path)
    path = write_pair(tmp_path, gold=GOLD + "d000.s009.t000 art%1:09:00::\n")
    with pytest.raises(DataError, match=r"senseval2.gold.key.txt:6: instance 'd000.s009.t000' is not in"):
        read_wsd(path)
    path = write_pair(tmp_path, gold=GOLD.replace("run%2:38:00::", "run"))
    with pytest.raises(DataError, match=r"senseval2.gold.key.txt:4: 'run' is not a WordNet sense key"):
        read_wsd(path)
    (tmp_path / "senseval2.gold.key.txt").write_bytes(GOLD.encode() + b"x \xff\n")
    with pytest.raises(DataError, match=r"senseval2.gold.key.txt:6: not UTF-8"):
        read_wsd(path)


def test_an_empty_corpus_and_a_missing_framework(tmp_path):
    path = write_pair(tmp_path, '<?xml version="1.0"?>\n<corpus lang="en" source="x">\n</corpus>\n', "")
    with pytest.raises(DataError, match="holds no <instance>"):
        read_wsd(path)
    with pytest.raises(DataError, match=r"`lexprobe data fetch wsd`"):
        load_wsd("senseval2")
    with pytest.raises(DataError, match="does not exist; give a set"):
        load_wsd(tmp_path / "nope.data.xml")


def test_check_file_counts_the_published_instances(tmp_path):
    path = write_pair(tmp_path / "x")
    with pytest.raises(DataError, match="holds 5 instances; the framework's senseval2 has 2,282"):
        check_file(path, "wsd-raganato/senseval2/senseval2.data.xml")
    with pytest.raises(DataError, match="holds 5 instances; the framework's senseval2 has 2,282"):
        check_file(path.with_name("senseval2.gold.key.txt"), "wsd-raganato/senseval2/senseval2.gold.key.txt")
    check_file(path, "wsd-raganato/README")  # no check for the README


# --- WordNet candidates --------------------------------------------------------------------------

def test_candidates_in_wordnet_order():
    from lexprobe.data.wsd_senses import lemma_form, senses

    assert lemma_form("Change Ringing") == "change_ringing"
    art = senses("art", "n")
    # index.sense numbers these senses 1, 2, 3, 4
    assert [s.key for s in art] == ["art%1:06:00::", "art%1:04:00::", "art%1:09:00::", "art%1:10:00::"]
    assert art[0].synset == "art.n.01" and art[0].definition.startswith("the products of human creativity")
    # adjectives include satellites (ss_type 5), in WordNet's order
    assert [s.key for s in senses("peculiar", "a")] == [
        "peculiar%5:00:00:strange:00", "peculiar%5:00:00:specific:00", "peculiar%5:00:00:unusual:00",
        "peculiar%5:00:00:characteristic:00"]
    # a synset naming the lemma twice (Earth, earth) is one candidate, with the key of WordNet's index.sense
    earth = [s.key for s in senses("earth", "n")]
    assert earth[0] == "earth%1:17:00::" and "earth%1:17:02::" not in earth and len(earth) == len(set(earth)) == 7
    assert senses("axes", "n") == ()  # NLTK's morphy finds axis/ax; their synsets do not name "axes"
    assert senses("English", "n")[0].key == "english%1:10:00::"


# --- the real framework, through `lexprobe data import` -------------------------------------------------

@pytest.fixture(scope="module")
def framework(imported_data_dir):
    root = imported_data_dir / "wsd-raganato"
    if not root.is_dir():
        pytest.skip("the WSD framework is not in the shared data")
    return check_framework(root)


def test_real_sets_counts_and_all_is_the_concatenation(framework, imported_data):
    assert {n: len(framework[n]) for n in NAMES} == PUBLISHED_COUNTS
    concatenated = [i for n in SETS for i in framework[n]]
    assert [i.qualified_id for i in concatenated] == [i.id for i in framework[ALL]]
    for mine, theirs in zip(framework[ALL], concatenated):
        assert (mine.set_name, mine.lemma, mine.pos, mine.tokens, mine.index, mine.gold) == (
            theirs.set_name, theirs.lemma, theirs.pos, theirs.tokens, theirs.index, theirs.gold)
    assert load_wsd("semeval2007") == framework["semeval2007"]  # by name, from the data directory
    gold = read_key_file(imported_data / "wsd-raganato" / "ALL" / "ALL.gold.key.txt")
    assert sum(len(k) > 1 for k in gold.values()) == 340  # instances with several gold keys


def test_candidates_equal_wordnets_index_order(framework):
    """``senses`` (NLTK's public API, de-duplicated) against the plain reference: the synsets listed for the
    lemma in ``index.<pos>`` (NLTK's private offset map), each with the lemma's key."""
    from lexprobe.data.wordnet import load_wordnet
    from lexprobe.data.wsd_senses import _indexed_keys, outside_inventory, sense_inventory, senses

    wordnet = load_wordnet()
    indexed = _indexed_keys(wordnet)
    for lemma, pos in sorted({(i.lemma, i.wordnet_pos) for i in framework[ALL]}):
        reference = []
        for offset in wordnet._lemma_pos_offset_map[lemma][pos]:
            synset = wordnet.synset_from_pos_and_offset(pos, offset)
            keys = [lem.key() for lem in synset.lemmas() if lem.name().lower() == lemma]
            reference.append(next(k for k in keys if k in indexed))
        assert [s.key for s in senses(lemma, pos, wordnet)] == reference, (lemma, pos)
    inventory = sense_inventory(framework[ALL], wordnet)
    assert outside_inventory(framework[ALL], inventory) == []  # every gold key is a candidate


PAPER_FIRST_SENSE = {"senseval2": 66.8, "senseval3": 66.2, "semeval2007": 55.2, "semeval2013": 63.0,
                     "semeval2015": 67.8, "ALL": 65.2}


def test_wordnet_first_sense_reproduces_the_papers_row(framework):
    from lexprobe.data.wsd_senses import candidate_keys, sense_inventory
    from lexprobe.metrics.wsd import score
    from lexprobe.metrics.wsd_baselines import first_sense_answers

    measured = {}
    for name in NAMES:
        candidates = candidate_keys(sense_inventory(framework[name]))
        s = score({i.id: i.gold for i in framework[name]}, first_sense_answers(candidates))
        assert s.answered == s.total == PUBLISHED_COUNTS[name]
        measured[name] = round(100 * s.f1, 1)
    assert measured == PAPER_FIRST_SENSE


#: measured with our SemCor 3.0 NAF copy (docs/wsd.md explains the difference from the paper's MFS row)
OUR_SEMCOR_MFS = {"senseval2": 66.9, "senseval3": 66.1, "semeval2007": 55.6, "semeval2013": 64.0,
                  "semeval2015": 67.7, "ALL": 65.4}
PAPER_MFS = {"senseval2": 65.6, "senseval3": 66.0, "semeval2007": 54.5, "semeval2013": 63.8, "semeval2015": 67.1,
             "ALL": 64.8}


@pytest.mark.slow
def test_semcor_most_frequent_sense(framework, imported_data):
    from lexprobe.data.semcor import default_archive
    from lexprobe.data.wsd_senses import candidate_keys, semcor_sense_counts, sense_inventory
    from lexprobe.metrics.wsd import score
    from lexprobe.metrics.wsd_baselines import UNSEEN, most_frequent_answers, rule_counts

    if not default_archive().exists():
        pytest.skip("SemCor is not in the shared data")
    counts = semcor_sense_counts()
    assert sum(counts.values()) == 234_136  # every sense-tagged term of SemCor 3.0 (NAF)
    measured = {}
    for name in NAMES:
        candidates = candidate_keys(sense_inventory(framework[name]))
        answers, how = most_frequent_answers(candidates, counts)
        measured[name] = round(100 * score({i.id: i.gold for i in framework[name]}, answers).f1, 1)
        if name == ALL:
            assert rule_counts(how)[UNSEEN] == 682
    assert measured == OUR_SEMCOR_MFS
    assert all(abs(measured[n] - PAPER_MFS[n]) <= 1.5 for n in NAMES)


# --- the registry: import, fetch, list -----------------------------------------------------------------

def test_import_refuses_what_is_not_the_framework(shared_data, tmp_path, capsys):
    source = shared_data / "wsd-raganato"
    if not source.is_dir():
        pytest.skip("the WSD framework is not in the shared data")
    copy = tmp_path / "release" / "WSD_Unified_Evaluation_Datasets"
    shutil.copytree(source, copy)
    for p in copy.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    (copy / "README").write_text("another README\n")
    # the unzipped release's parent folder holds the framework's folder: that one is imported
    assert main(["data", "import", "wsd", str(copy.parent)]) == 0
    out = capsys.readouterr().out
    assert "importing " in out and "README is not the pinned README; not imported" in out
    assert store.verify("wsd") == ("ok", [])
    assert not (registry.data_dir() / "wsd-raganato" / "README").exists()
    assert (registry.data_dir() / "wsd-raganato" / "Scorer.java").is_file()
    assert len(load_wsd("semeval2015")) == 1022
    # a changed gold file is not the pinned release
    gold = copy / "senseval3" / "senseval3.gold.key.txt"
    gold.write_text(gold.read_text().replace("%1:", "%2:", 1))
    assert main(["data", "import", "wsd", str(copy)]) == 2
    assert "is not the pinned" in capsys.readouterr().err
    # a folder without the sets
    assert main(["data", "import", "wsd", str(tmp_path)]) == 2
    assert "does not hold the WSD framework" in capsys.readouterr().err


def test_fetch_wsd_from_a_local_mirror(shared_data, tmp_path, monkeypatch, capsys):
    from tests.data.test_fetch import RangeHandler, _mirror_path

    source = shared_data / "wsd-raganato"
    if not source.is_dir():
        pytest.skip("the WSD framework is not in the shared data")
    mirror = tmp_path / "mirror"
    ds = registry.DATASETS["wsd"]
    for f in ds.files:
        dest = _mirror_path(mirror, f.url)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / f.relpath.split("/", 1)[1], dest)
    RangeHandler.drop_after, RangeHandler.drops_left, RangeHandler.log = {}, {}, []
    RangeHandler.ranges = True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(mirror)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", f"http://127.0.0.1:{httpd.server_address[1]}")
    from lexprobe.data import download

    download._unreachable.clear()
    try:
        # a damaged file on the mirror: refused by its SHA-256, nothing left behind, nothing pinned
        damaged = _mirror_path(mirror, ds.files[0].url)
        good = damaged.read_bytes()
        damaged.write_bytes(good.replace(b'lemma="art"', b'lemma="arts"', 1))
        assert main(["data", "fetch", "wsd", "--no-progress"]) == 2
        assert "checksum mismatch for senseval2.data.xml" in capsys.readouterr().err
        assert store.read_state("wsd") == {} and not list(registry.data_dir().rglob("*.part"))
        damaged.write_bytes(good)
        assert main(["data", "fetch", "wsd", "--no-progress"]) == 0
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert len(RangeHandler.log) >= len(ds.files)
    for f in ds.files:
        assert download.sha256_of(registry.data_dir() / f.relpath) == f.sha256
    assert sorted(store.read_state("wsd")["files"]) == sorted(f.relpath for f in ds.files)
    assert len(load_wsd(ALL)) == 7253 and store.verify("wsd") == ("ok", [])
    capsys.readouterr()
    assert main(["data", "list"]) == 0
    listing = capsys.readouterr().out
    assert "\nwsd " in listing and "HSLCY/GlossBERT" in listing and "64d282d5bae75064fc1a0b35fae8b250538411ec" in listing
