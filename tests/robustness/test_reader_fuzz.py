"""Fuzz every reader with seeded truncated and mutated copies of small real files.

Each case must end in a ``DataError`` naming the file, or in a result whose
records are all valid (bad groups of CoDA21 counted in ``problems``): never
another exception, never a hang. The seeds are fixed, so a failure is
reproducible from the case number in the assertion message. The shapes of issue #19
(a key twice in one object, 100k nested brackets, NaN/Infinity where text belongs, a
FIFO or /dev/zero under a data file's name) are tried on every reader at the end.
"""

from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import random
import re
import signal
import tarfile

import pytest

from lexprobe.errors import DataError

CASES_PER_READER = 36
JUNK = ["", "5", "-", "_", "\t", "null", "[]", "{}", "é", "\x00", "999999", "-1", "a|b~c", "#", "=", "x" * 50]


# --- mutations ------------------------------------------------------------------------

def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    choice = rng.randrange(5)
    if choice == 0 or len(data) < 4:  # truncation at any point
        return data[: rng.randrange(len(data) + 1)]
    data = bytearray(data)
    if choice == 1:  # flip a few bytes
        for _ in range(rng.randint(1, 8)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data)
    lines = bytes(data).split(b"\n")
    i = rng.randrange(len(lines))
    if choice == 2:  # drop or duplicate a line
        if rng.random() < 0.5:
            del lines[i]
        else:
            lines.insert(i, lines[i])
    elif choice == 3:  # replace one field (tab- or space-separated) with junk
        sep = b"\t" if b"\t" in lines[i] else b" "
        fields = lines[i].split(sep)
        fields[rng.randrange(len(fields))] = rng.choice(JUNK).encode()
        if rng.random() < 0.3:
            fields = fields[: rng.randrange(len(fields) + 1)]
        lines[i] = sep.join(fields)
    else:  # cut a line short
        lines[i] = lines[i][: rng.randrange(len(lines[i]) + 1)]
    return b"\n".join(lines)


def mutate_json(obj, rng: random.Random):
    """Delete a key, or give a value the wrong type, somewhere in a JSON tree."""
    obj = json.loads(json.dumps(obj))
    paths = []

    def walk(node, trail):
        paths.append(trail)
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, trail + [k])
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, trail + [i])

    walk(obj, [])
    trail = rng.choice(paths[1:])
    parent = obj
    for step in trail[:-1]:
        parent = parent[step]
    last = trail[-1]
    if isinstance(parent, dict) and rng.random() < 0.4:
        del parent[last]
    else:
        parent[last] = rng.choice([5, None, "", [], {}, [5], "x", -1, 1.5])
    return obj


# --- the harness ------------------------------------------------------------------------

class Hang(Exception):
    pass


def _alarm(signum, frame):
    raise Hang()


def check_cases(name, cases, read, tmp_path, validate=None):
    """``cases``: (file name, bytes) pairs; ``read(path)`` returns records or raises DataError."""
    failures = []
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for n, (fname, data) in enumerate(cases):
            case_dir = tmp_path / f"{name}-{n}"
            case_dir.mkdir()
            path = case_dir / fname
            path.write_bytes(data)
            signal.alarm(10)
            try:
                result = read(path)
                if validate:
                    validate(result)
            except DataError as err:
                if fname not in str(err) and str(case_dir) not in str(err):
                    failures.append(f"{name} case {n}: DataError without the file name: {err}")
                if "\n" in str(err):
                    failures.append(f"{name} case {n}: DataError of more than one line: {err!r}")
            except Hang:
                failures.append(f"{name} case {n}: hang (> 10 s)")
            except Exception as err:  # noqa: BLE001
                failures.append(f"{name} case {n}: {type(err).__name__}: {err}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert not failures, "\n".join(failures[:20])


def byte_cases(fname, data, seed, n=CASES_PER_READER):
    rng = random.Random(seed)
    return [(fname, mutate_bytes(data, rng)) for _ in range(n)]


def json_cases(fname, obj, seed, n=CASES_PER_READER, dump=lambda o: json.dumps(o).encode()):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        if i % 3 == 0:
            out.append((fname, mutate_bytes(dump(obj), rng)))
        else:
            out.append((fname, dump(mutate_json(obj, rng))))
    return out


def valid_instances(instances):
    from lexprobe.data.instances import validate

    assert isinstance(instances, list)
    for inst in instances:
        validate(inst)
        assert isinstance(inst.label, str) and isinstance(inst.lemma, str)


# --- readers ---------------------------------------------------------------------------

def test_wordnet_groups_jsonl(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import group_to_dict, load_groups
    from tests.benchmarks.wdlmpro.test_evaluate import GROUPS

    text = "".join(json.dumps(group_to_dict(g)) + "\n" for g in GROUPS).encode()
    cases = byte_cases("groups.jsonl", text, 1)
    rng = random.Random(2)
    for _ in range(CASES_PER_READER):
        lines = [group_to_dict(g) for g in GROUPS]
        i = rng.randrange(len(lines))
        lines[i] = mutate_json(lines[i], rng)
        cases.append(("groups.jsonl", "".join(json.dumps(x) + "\n" for x in lines).encode()))

    def validate(groups):
        for g in groups:
            assert g.candidates[0].synset == g.target and all(c.word and c.definition for c in g.candidates)

    check_cases("wdlmpro", cases, load_groups, tmp_path, validate)


def test_coda21_json(tmp_path, shared_data):
    from lexprobe.benchmarks.coda21.dataset import load_coda

    full = json.loads((shared_data / "coda21" / "CoDA-clean-hard.json").read_text(encoding="utf-8"))
    small = {"n": full["n"][:3], "v": full["v"][:2]}

    def validate(data):
        assert len(data.groups) + len(data.problems) <= 5
        for g in data.groups:
            assert g.k >= 2 and all(isinstance(c.context, str) and c.word for c in g.candidates)

    check_cases("coda21", json_cases("coda.json", small, 3, n=2 * CASES_PER_READER), load_coda, tmp_path, validate)


@pytest.fixture(scope="module")
def semcor_members(shared_data):
    """The first two NAF documents of the real archive (read as a stream: only the start is decompressed)."""
    members = []
    with tarfile.open(shared_data / "semcor3.0" / "semcor3.0_naf.tar.xz", "r:xz") as tar:
        for m in tar:
            if m.isfile() and m.name.endswith(".naf"):
                members.append((m.name, tar.extractfile(m).read()))
                if len(members) == 2:
                    break
    return members


def _tar_xz(members) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return lzma.compress(raw.getvalue(), preset=0)


def test_semcor_naf_archive(tmp_path, semcor_members):
    from lexprobe.data.semcor import semcor_instances

    archive = _tar_xz(semcor_members)
    cases = byte_cases("semcor.tar.xz", archive, 4, n=CASES_PER_READER // 2)
    rng = random.Random(5)
    for _ in range(CASES_PER_READER // 2):  # damage inside the documents, archive intact
        (name, data), other = semcor_members
        cases.append(("semcor.tar.xz", _tar_xz([(name, mutate_bytes(data, rng)), other])))
    check_cases("semcor", cases, lambda p: semcor_instances(p), tmp_path, valid_instances)


def test_conll2012(tmp_path):
    from lexprobe.data.ontonotes import read_ontonotes
    from tests.data.test_ontonotes import DOC

    check_cases("ontonotes", byte_cases("wsj_0001_train.gold_conll", (DOC * 3).encode(), 6),
                lambda p: read_ontonotes(p, nota=set()), tmp_path, valid_instances)


def test_pdep_conllu(tmp_path):
    from lexprobe.data.pdep import read_pdep
    from tests.data.test_pdep import CONLLU

    check_cases("pdep", byte_cases("pdep_train.conllu", (CONLLU * 3).encode(), 7), read_pdep, tmp_path,
                valid_instances)


@pytest.fixture(scope="module")
def streusle_dev(shared_data):
    root = shared_data / "streusle-4.4" / "dev"
    sentences = json.loads(gzip.decompress((root / "streusle.ud_dev.json.gz").read_bytes()))[:4]
    conllulex = gzip.decompress((root / "streusle.ud_dev.conllulex.gz").read_bytes()).decode()
    conllulex = "\n\n".join(conllulex.split("\n\n")[:4]) + "\n\n"
    vis = "".join((root / "streusle.ud_dev.vis").read_text(encoding="utf-8").splitlines(True)[:6])
    return sentences, conllulex, vis


def test_streusle_json(tmp_path, streusle_dev):
    from lexprobe.data.streusle import read_streusle_json

    cases = json_cases("dev.json", streusle_dev[0], 8)
    cases += [(f, gzip.compress(d)) for f, d in json_cases("dev.json.gz", streusle_dev[0], 9, n=8)]
    check_cases("streusle-json", cases, lambda p: read_streusle_json(p, "dev"), tmp_path, valid_instances)


def test_streusle_conllulex(tmp_path, streusle_dev):
    from lexprobe.data.streusle import read_streusle_conllulex

    cases = byte_cases("dev.conllulex", streusle_dev[1].encode(), 10)
    cases += byte_cases("dev.conllulex.gz", gzip.compress(streusle_dev[1].encode()), 11, n=8)
    check_cases("streusle-conllulex", cases, lambda p: read_streusle_conllulex(p, "dev"), tmp_path,
                valid_instances)


def test_streusle_vis(tmp_path, streusle_dev):
    from lexprobe.data.streusle import read_streusle_vis

    check_cases("streusle-vis", byte_cases("dev.vis", streusle_dev[2].encode(), 12),
                lambda p: read_streusle_vis(p, "dev", lemmatize=False), tmp_path, valid_instances)


def valid_wsd(instances):
    from lexprobe.data.wsd import POS_ORDER
    from lexprobe.metrics.wsd import SENSE_KEY

    assert isinstance(instances, list) and instances
    for inst in instances:
        assert 0 <= inst.index < len(inst.tokens) and all(isinstance(t, str) and t.strip() for t in inst.tokens)
        assert inst.pos in POS_ORDER and inst.lemma and inst.id and not any(c.isspace() for c in inst.id)
        assert inst.gold and all(SENSE_KEY.fullmatch(k) for k in inst.gold)


def test_wsd_framework_xml_and_gold(tmp_path):
    """The framework's reader: mutated data files against a fixed gold file, and the reverse; a FIFO or
    /dev/zero under either name."""
    from lexprobe.data.wsd import read_wsd
    from tests.data.test_wsd import GOLD, XML

    fixed = tmp_path / "fixed"
    fixed.mkdir()
    (fixed / "senseval2.data.xml").write_text(XML, encoding="utf-8")
    (fixed / "senseval2.gold.key.txt").write_text(GOLD, encoding="utf-8")
    gold, data = fixed / "senseval2.gold.key.txt", fixed / "senseval2.data.xml"
    check_cases("wsd-xml", byte_cases("senseval2.data.xml", XML.encode(), 13, n=2 * CASES_PER_READER),
                lambda p: read_wsd(p, gold), tmp_path, valid_wsd)
    check_cases("wsd-gold", byte_cases("senseval2.gold.key.txt", GOLD.encode(), 14),
                lambda p: read_wsd(data, p), tmp_path, valid_wsd)
    check_special("wsd-xml", "senseval2.data.xml", lambda p: read_wsd(p, gold), tmp_path)
    check_special("wsd-gold", "senseval2.gold.key.txt", lambda p: read_wsd(data, p), tmp_path)


# --- new shapes (issue #19): duplicate keys, deep nesting, NaN, FIFOs and devices ---------------------

DEEP = b"[" * 100_000 + b"]" * 100_000


def check_special(name, fname, read, tmp_path):
    """A FIFO and a link to /dev/zero under the reader's file name: one DataError each, never a hang
    (a FIFO blocks ``open`` until a writer comes) and never a read that does not end (/dev/zero)."""
    fifo_dir, zero_dir = tmp_path / f"{name}-fifo", tmp_path / f"{name}-zero"
    fifo_dir.mkdir()
    zero_dir.mkdir()
    os.mkfifo(fifo_dir / fname)
    (zero_dir / fname).symlink_to("/dev/zero")
    failures = []
    old = signal.signal(signal.SIGALRM, _alarm)
    try:
        for case in (fifo_dir / fname, zero_dir / fname):
            signal.alarm(10)
            try:
                read(case)
                failures.append(f"{name} {case}: read without an error")
            except DataError as err:
                if fname not in str(err) or "\n" in str(err) or "not a regular file" not in str(err):
                    failures.append(f"{name} {case}: {err}")
            except Hang:
                failures.append(f"{name} {case}: hang (> 10 s)")
            except Exception as err:  # noqa: BLE001
                failures.append(f"{name} {case}: {type(err).__name__}: {err}")
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, old)
    assert not failures, "\n".join(failures)


def json_shapes(fname, text: bytes, key: bytes, duplicate: bytes):
    """The file with ``key`` given twice in one object, with a line of deep brackets, with NaN values."""
    first = text.index(key)
    cases = [(fname, text[:first] + duplicate + text[first:])]
    cases.append((fname, DEEP))
    cases.append((fname, text + b"\n" + DEEP + b"\n"))
    for literal in (b"NaN", b"Infinity", b"-Infinity"):
        cases.append((fname, re.sub(rb'": "[^"]*"', b'": ' + literal, text, count=3)))
    return cases


def test_new_shapes_wdlmpro_jsonl(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import group_to_dict, load_groups
    from tests.benchmarks.wdlmpro.test_evaluate import GROUPS

    text = "".join(json.dumps(group_to_dict(g)) + "\n" for g in GROUPS).encode()
    cases = json_shapes("groups.jsonl", text, b'"target"', b'"target": "x.n.01", ')
    check_cases("wdlmpro-shapes", cases, load_groups, tmp_path,
                lambda groups: all(isinstance(c.word, str) for g in groups for c in g.candidates))
    with pytest.raises(DataError, match="duplicate key 'target'"):
        (tmp_path / "dup.jsonl").write_bytes(cases[0][1])
        load_groups(tmp_path / "dup.jsonl")
    check_special("wdlmpro", "groups.jsonl", load_groups, tmp_path)


def test_new_shapes_coda21_json(tmp_path):
    from lexprobe.benchmarks.coda21.dataset import load_coda
    from tests.benchmarks.coda21.helpers import write_small

    text = write_small(tmp_path / "small.json").read_bytes()
    cases = json_shapes("coda.json", text, b'"n"', b'"n": [], ')
    cases.append(("coda.json", text.replace(b'"definition"', b'"definition": 1, "definition"', 1)))

    def validate(data):
        for g in data.groups:
            assert all(isinstance(c.definition, str) and isinstance(c.context, str) for c in g.candidates)

    check_cases("coda21-shapes", cases, load_coda, tmp_path, validate)
    for dup in (cases[0][1], cases[-1][1]):  # a key twice, at the top and inside a candidate
        (tmp_path / "dup.json").write_bytes(dup)
        with pytest.raises(DataError, match="duplicate key"):
            load_coda(tmp_path / "dup.json")
    check_special("coda21", "coda.json", load_coda, tmp_path)


def test_new_shapes_streusle_json(tmp_path, streusle_dev):
    from lexprobe.data.streusle import read_streusle_json

    text = json.dumps(streusle_dev[0]).encode()
    cases = json_shapes("dev.json", text, b'"sent_id"', b'"sent_id": "x-1", ')
    check_cases("streusle-shapes", cases, lambda p: read_streusle_json(p, "dev"), tmp_path, valid_instances)
    check_special("streusle-json", "dev.json", lambda p: read_streusle_json(p, "dev"), tmp_path)


@pytest.mark.parametrize("reader", ["conllu", "conllulex", "vis", "conll2012", "semcor", "counts"])
def test_new_shapes_fifo_and_devices(reader, tmp_path):
    from lexprobe.benchmarks.wdlmpro.attributes import load_counts
    from lexprobe.data.ontonotes import read_ontonotes
    from lexprobe.data.pdep import read_pdep
    from lexprobe.data.semcor import semcor_instances
    from lexprobe.data.streusle import read_streusle_conllulex, read_streusle_vis

    fname, read = {
        "conllu": ("pdep_train.conllu", read_pdep),
        "conllulex": ("dev.conllulex", lambda p: read_streusle_conllulex(p, "dev")),
        "vis": ("dev.vis", lambda p: read_streusle_vis(p, "dev", lemmatize=False)),
        "conll2012": ("wsj_0001_train.gold_conll", lambda p: read_ontonotes(p, nota=set())),
        "semcor": ("semcor.tar.xz", lambda p: semcor_instances(p)),
        "counts": ("counts.tsv", load_counts),
    }[reader]
    check_special(reader, fname, read, tmp_path)
