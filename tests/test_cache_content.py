"""Caches tied to their content (``cache.cached_json``): every entry records the digest of the inputs it was built
from and of itself; an entry of other inputs (two files swapped), an edited one or a foreign one is built again
with one notice, never read. Each cache that goes through it: WDLMPro's groups and statistics, CoDA21's builds,
SemCor's sentences."""

from __future__ import annotations

import json
import os

import pytest

from lexprobe.benchmarks.wdlmpro import dataset as ds
from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.cache import cache_dir, cached_json


def _groups(pos: str) -> list[SynsetGroup]:
    out = []
    for i in range(3):
        cands = tuple(Candidate(f"w{i}_{j}.{pos}.01", f"w{i} {j}", f"a {pos} definition {i} {j}") for j in range(5))
        out.append(SynsetGroup(cands[0].synset, pos, cands[0].word, cands))
    return out


@pytest.fixture()
def built(monkeypatch):
    """WDLMPro's full build stood in by three groups per part of speech; each build is counted."""
    calls: list[str] = []

    def build(pos, keep_duplicates=False, wn=None, targets=None, progress=False):
        calls.append(pos)
        return _groups(pos)

    monkeypatch.setattr(ds, "build_groups", build)
    monkeypatch.setattr(ds, "wordnet_key", lambda: "wordnet-toy")
    return calls


def _swap(a, b) -> None:
    tmp = a.with_name("swap.tmp")
    os.rename(a, tmp)
    os.rename(b, a)
    os.rename(tmp, b)


def test_swapped_noun_and_verb_group_entries_are_built_again_not_read(built, capsys):
    assert [g.target for g in ds.default_dataset("n", progress=False)] == [g.target for g in _groups("n")]
    assert [g.target for g in ds.default_dataset("v", progress=False)] == [g.target for g in _groups("v")]
    assert built == ["n", "v"]
    noun, verb = ds._cache_path("n", False), ds._cache_path("v", False)
    _swap(noun, verb)
    capsys.readouterr()
    nouns = ds.default_dataset("n", progress=False)
    assert [g.target for g in nouns] == [g.target for g in _groups("n")] and built == ["n", "v", "n"]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(noun) in err and "other inputs" in err and "building it again" in err
    assert [g.target for g in ds.default_dataset("v", progress=False)] == [g.target for g in _groups("v")]
    assert built == ["n", "v", "n", "v"]
    ds.default_dataset("n", progress=False)  # rebuilt entries are read from then on, silently
    assert built == ["n", "v", "n", "v"] and capsys.readouterr().err.count("other inputs") == 1


def test_an_edited_definition_is_built_again_not_used(built, capsys):
    ds.default_dataset("v", progress=False)
    path = ds._cache_path("v", False)
    path.write_bytes(path.read_bytes().replace(b"a v definition 0 1", b"an EDITED definition"))
    capsys.readouterr()
    groups = ds.default_dataset("v", progress=False)
    assert groups == _groups("v") and built == ["v", "v"]
    assert "changed after it was stored" in capsys.readouterr().err


def test_an_entry_of_another_keep_duplicates_variant_is_built_again(built, capsys):
    ds.default_dataset("n", progress=False)
    keep = ds._cache_path("n", True)
    keep.write_bytes(ds._cache_path("n", False).read_bytes())  # the dedup build copied to the keep-duplicates name
    ds.default_dataset("n", keep_duplicates=True, progress=False)
    assert built == ["n", "n"] and "other inputs" in capsys.readouterr().err


def test_a_foreign_entry_of_the_right_shape_is_built_again(built, capsys):
    """A file that is no lexprobe entry (one written by hand, or before entries recorded their inputs) is not
    read, even when it has the shape of the groups cache."""
    path = ds._cache_path("n", False)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(ds._cache_rows(_groups("v"))))
    assert [g.target for g in ds.default_dataset("n", progress=False)] == [g.target for g in _groups("n")]
    assert built == ["n"] and "not a lexprobe cache entry" in capsys.readouterr().err


def test_swapped_statistics_entries_are_computed_again(capsys):
    from lexprobe.benchmarks.wdlmpro.attributes import cached_stats

    a = cached_stats("a" * 24, lambda: {"table2": {"n": {"groups": 1.0}}})
    b = cached_stats("b" * 24, lambda: {"table2": {"n": {"groups": 2.0}}})
    assert (a["table2"], b["table2"]) == ({"n": {"groups": 1.0}}, {"n": {"groups": 2.0}})
    folder = cache_dir() / "wdlmpro"
    _swap(folder / f"stats-{'a' * 24}.json", folder / f"stats-{'b' * 24}.json")
    assert cached_stats("a" * 24, lambda: {"table2": {"n": {"groups": 1.0}}})["table2"] == {"n": {"groups": 1.0}}
    assert "other inputs" in capsys.readouterr().err


def test_a_coda21_build_under_another_key_is_built_again(capsys):
    from lexprobe.benchmarks.coda21.build_cache import cached_build
    from lexprobe.benchmarks.coda21.dataset import Candidate as CodaCandidate
    from lexprobe.benchmarks.coda21.dataset import Group

    def group(word: str) -> Group:
        return Group("n/0", "n", "parent", "animal.n.01",
                     [CodaCandidate(f"{w}.n.01", f"a {w}", f"the {w} is here", w) for w in (word, "cat", "cow")])

    said: list[str] = []
    first = cached_build("k1", lambda: [group("dog")], say=said.append)
    cached_build("k2", lambda: [group("pig")], say=said.append)
    folder = cache_dir() / "coda21"
    _swap(folder / "build-k1.json", folder / "build-k2.json")
    again = cached_build("k1", lambda: [group("dog")], say=said.append)
    assert [c.word for c in again[0].candidates] == [c.word for c in first[0].candidates] == ["dog", "cat", "cow"]
    assert not any("reusing" in line for line in said) and "other inputs" in capsys.readouterr().err


def test_an_edited_semcor_sentences_entry_is_parsed_again(capsys):
    from lexprobe.data.semcor import _cache_file, iter_semcor_sentences, sample_archive

    sentences = list(iter_semcor_sentences(sample_archive()))
    path = _cache_file(sample_archive())
    word = sentences[0].tokens[0]
    body = path.read_bytes()
    assert json.dumps(word).encode() in body
    path.write_bytes(body.replace(json.dumps(word).encode(), json.dumps(word + "x").encode(), 1))
    capsys.readouterr()
    assert list(iter_semcor_sentences(sample_archive())) == sentences
    assert "changed after it was stored" in capsys.readouterr().err


def cache_entry(data, inputs) -> bytes:
    from lexprobe.cache import cache_entry

    return cache_entry(data, inputs)


@pytest.mark.parametrize("damage, why", [
    (lambda raw: cache_entry(json.loads(raw.split(b"\n", 1)[1]), "other inputs"), "other inputs"),
    (lambda raw: raw.replace(b"[1,2]", b"[1,3]"), "changed after it was stored"),
    (lambda raw: raw.split(b"\n", 1)[1], "not a lexprobe cache entry"),
    (lambda raw: b'{"format": "lexprobe-cache/0"}\n' + raw.split(b"\n", 1)[1], "not a lexprobe cache entry"),
])
def test_cached_json_reads_only_an_entry_of_these_inputs_and_this_content(tmp_path, damage, why):
    path = tmp_path / "entry.json"
    notices: list[str] = []
    assert cached_json(path, list[int], lambda: [1, 2], inputs={"x": 1}, notice=notices.append) == [1, 2]
    assert cached_json(path, list[int], lambda: pytest.fail("read"), inputs={"x": 1}, notice=notices.append) == [1, 2]
    assert notices == []  # a missing entry is built silently, a good one read silently
    path.write_bytes(damage(path.read_bytes()))
    assert cached_json(path, list[int], lambda: [1, 2], inputs={"x": 1}, notice=notices.append) == [1, 2]
    assert len(notices) == 1 and why in notices[0] and str(path) in notices[0]
    assert path.read_bytes() == cache_entry([1, 2], {"x": 1})
