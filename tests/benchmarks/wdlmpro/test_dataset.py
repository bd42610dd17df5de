"""WDLMPro dataset: group construction, JSONL, statistics, sampling, human subset, CLI."""

from __future__ import annotations

import argparse
import json
import time

import pytest

from lexprobe.benchmarks.wdlmpro import dataset as ds
from lexprobe.benchmarks.wdlmpro import cli as wdlmpro_cli
from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.human import format_sheet, sample_human, write_human_sample
from lexprobe.errors import DataError, LexprobeError
from tests.benchmarks.wdlmpro.fake_wordnet import toy_wordnet


@pytest.fixture(scope="module")
def wn():
    from lexprobe.data.wordnet import load_wordnet

    try:
        return load_wordnet()
    except LexprobeError as err:
        pytest.skip(str(err))


def names(group: SynsetGroup) -> list[str]:
    return [c.synset for c in group.candidates]


def toy_groups(n: int, sizes: list[int] | None = None) -> list[SynsetGroup]:
    """n groups alternating noun/verb; group i has sizes[i] candidates (default 5 + i)."""
    groups = []
    for i in range(n):
        pos = "nv"[i % 2]
        size = sizes[i] if sizes else 5 + i
        cands = tuple(Candidate(f"w{i}_{j}.{pos}.01", f"w{i} {j}", f"definition {i} {j} é") for j in range(size))
        groups.append(SynsetGroup(cands[0].synset, pos, cands[0].word, cands))
    return groups


# ---------------------------------------------------------------- construction


def test_toy_groups_with_and_without_dedup():
    wn = toy_wordnet()
    kept = ds.build_groups("n", keep_duplicates=True, wn=wn)
    assert [g.target for g in kept] == ["t.n.01", "a.n.01", "t.n.02", "b.n.01", "c.n.01"]
    # sisters under other.n.01 then root.n.01, each sorted by name; a.n.01 (under both) once
    assert names(kept[0]) == ["t.n.01", "a.n.01", "d.n.01", "e_f.n.01", "b.n.01", "c.n.01", "t.n.02"]
    deduped = ds.build_groups("n", wn=wn)
    assert [g.target for g in deduped] == ["t.n.01", "a.n.01"]
    # b.n.01 repeats a.n.01's definition, t.n.02 repeats the word "t"
    assert names(deduped[0]) == ["t.n.01", "a.n.01", "d.n.01", "e_f.n.01", "c.n.01"]
    assert names(deduped[1]) == ["a.n.01", "d.n.01", "e_f.n.01", "t.n.01", "c.n.01"]
    assert deduped[0].candidates[3] == Candidate("e_f.n.01", "e f", "def e")
    assert deduped[0].word == "t" and deduped[0].definition == "target def"


def test_targets_subset_and_min_size():
    wn = toy_wordnet()
    assert [g.target for g in ds.build_groups("n", wn=wn, targets=["c.n.01", "a.n.01"])] == ["a.n.01"]
    assert ds.build_groups("n", keep_duplicates=True, wn=wn, targets=["d.n.01"]) == []  # 4 members
    with pytest.raises(DataError):
        ds.build_groups("a", wn=wn)


def test_known_verb_group_beckon(wn):
    group = ds.build_groups("v", wn=wn, targets=["beckon.v.01"])[0]
    assert group.candidates[0] == Candidate("beckon.v.01", "beckon", "signal with the hands or nod")
    assert {"wink.v.01", "nod.v.01", "applaud.v.01", "bow.v.01", "shrug.v.01", "exsert.v.01"} <= set(names(group))
    assert len(set(names(group))) == group.size


def test_known_noun_group_a_cappella_singing(wn):
    group = ds.build_groups("n", wn=wn, targets=["a_cappella_singing.n.01"])[0]
    assert group.word == "a cappella singing"
    assert group.definition == "singing without instrumental accompaniment"
    members = set(names(group))
    assert {"crooning.n.01", "caroling.n.01", "singalong.n.01", "bel_canto.n.01"} <= members
    # crooning.n.02 repeats the word "crooning": only the first by name (the paper's) stays
    assert "crooning.n.02" not in members
    full = ds.build_groups("n", keep_duplicates=True, wn=wn, targets=["a_cappella_singing.n.01"])[0]
    assert {"crooning.n.02", "intonation.n.03"} <= set(names(full)) and full.size == group.size + 2


def test_no_instance_relations(wn):
    # escape.n.01 has instance hyponyms (hegira.n.01, underground_railroad.n.01); they stay out
    group = ds.build_groups("n", keep_duplicates=True, wn=wn, targets=["evasion.n.04"])[0]
    assert names(group) == ["evasion.n.04", "break.n.16", "exodus.n.01", "getaway.n.02", "skedaddle.n.01"]


# ---------------------------------------------------------------- JSONL


def test_jsonl_round_trip(tmp_path):
    groups = ds.build_groups("n", keep_duplicates=True, wn=toy_wordnet()) + toy_groups(3)
    path = ds.write_jsonl(groups, tmp_path / "sub" / "g.jsonl")
    assert ds.load_groups(path) == groups
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["target"] == "t.n.01" and first["pos"] == "n" and first["word"] == "t"
    assert first["candidates"][0] == {"synset": "t.n.01", "word": "t", "definition": "target def"}


def test_load_dataset_directory_and_pos(tmp_path):
    groups = toy_groups(4)
    ds.write_jsonl([g for g in groups if g.pos == "n"], tmp_path / "wdlmpro_n.jsonl")
    ds.write_jsonl([g for g in groups if g.pos == "v"], tmp_path / "wdlmpro_v.jsonl")
    assert [g.target for g in ds.load_dataset(tmp_path)] == [groups[0].target, groups[2].target, groups[1].target, groups[3].target]
    assert [g.pos for g in ds.load_dataset(tmp_path, "v")] == ["v", "v"]
    ds.write_jsonl(groups, tmp_path / "all.jsonl")
    assert len(ds.load_dataset(tmp_path / "all.jsonl", "n")) == 2
    (tmp_path / "only_n").mkdir()
    with pytest.raises(DataError, match="only_n/wdlmpro_v.jsonl not found"):
        ds.load_dataset(tmp_path / "only_n", "v")
    with pytest.raises(DataError, match="missing not found"):
        ds.load_dataset(tmp_path / "missing")


GOOD = json.dumps(ds.group_to_dict(toy_groups(1)[0]))


@pytest.mark.parametrize(
    "content, line, reason",
    [
        (GOOD + "\n{not json\n", 2, "malformed"),
        (GOOD + "\n\n" + json.dumps({"target": "x.n.01", "pos": "n", "word": "x"}) + "\n", 3, "candidates"),
        (json.dumps({**json.loads(GOOD), "pos": "a"}) + "\n", 1, "pos"),
        (json.dumps({**json.loads(GOOD), "target": "other.n.01"}) + "\n", 1, "first candidate"),
        (json.dumps({**json.loads(GOOD), "candidates": [{"synset": "w0_0.n.01", "word": "w"}] * 2}) + "\n", 1, "definition"),
        ("[1, 2]\n", 1, "object"),
    ],
)
def test_malformed_file_names_file_and_line(tmp_path, content, line, reason):
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=reason) as err:
        ds.load_groups(path)
    assert f"{path}:{line}:" in str(err.value) and "lexprobe wdlmpro build" in str(err.value)


def test_empty_or_missing_file(tmp_path):
    path = tmp_path / "empty.jsonl"
    path.write_text("\n  \n", encoding="utf-8")
    with pytest.raises(DataError, match="empty.jsonl is empty; rebuild"):
        ds.load_groups(path)
    with pytest.raises(DataError, match="not found"):
        ds.load_groups(tmp_path / "nope.jsonl")


# ---------------------------------------------------------------- cached default dataset


def test_default_dataset_builds_once_then_loads_cache(monkeypatch, tmp_path):
    fake = toy_wordnet()
    calls = []
    real_build = ds.build_groups

    def counting_build(pos, keep_duplicates=False, wn=None, targets=None, progress=False):
        calls.append((pos, keep_duplicates))
        return real_build(pos, keep_duplicates, wn=fake, targets=targets)

    monkeypatch.setattr(ds, "load_wordnet", lambda: fake)
    monkeypatch.setattr(ds, "wordnet_key", lambda: "wordnet-toy")
    monkeypatch.setattr(ds, "build_groups", counting_build)
    first = ds.default_dataset("n")
    assert calls == [("n", False)] and [g.target for g in first] == ["t.n.01", "a.n.01"]
    assert ds.default_dataset("n") == first and len(calls) == 1  # second call read the cache
    cached = list((tmp_path / "lexprobe-cache" / "wdlmpro").glob("*.json"))
    assert [p.name for p in cached] == ["wordnet-toy_b1_dedup_n.json"]
    again = ds.default_dataset("n")
    assert again[0].candidates[1] is again[1].candidates[0]  # a.n.01 is one shared object
    assert len(ds.default_dataset("n", keep_duplicates=True)) == 5 and calls[-1] == ("n", True)
    cached[0].write_text("garbage\n")  # a damaged cache is rebuilt, not fatal
    assert ds.default_dataset("n") == first and len(calls) == 3


def test_wordnet_key_without_loading_wordnet(monkeypatch):
    from lexprobe.data import wordnet as wn_setup

    if not any((d / "data.noun").exists() for d in wn_setup._candidate_source_dirs()):
        pytest.skip("no WordNet dict directory installed")
    monkeypatch.setattr(ds, "load_wordnet", lambda: pytest.fail("must not load WordNet"))
    monkeypatch.setattr(wn_setup, "load_wordnet", lambda: pytest.fail("must not load WordNet"))
    key = ds.wordnet_key()
    assert key.startswith("wordnet-3.0-") and key == ds.wordnet_key()


def test_load_groups_shares_candidates(tmp_path):
    groups = ds.build_groups("n", keep_duplicates=True, wn=toy_wordnet())
    loaded = ds.load_groups(ds.write_jsonl(groups, tmp_path / "g.jsonl"))
    assert loaded == groups and loaded[0].candidates[1] is loaded[1].candidates[0]


# ---------------------------------------------------------------- statistics


def test_stats_hand_computed():
    groups = ds.build_groups("n", keep_duplicates=True, wn=toy_wordnet()) + toy_groups(4, [5, 6, 9, 12])[1::2]
    stats = ds.dataset_stats(groups)
    assert stats["n"] == {"groups": 5, "candidates": 29, "avg_candidates": 5.8, "min_candidates": 5, "max_candidates": 7}
    assert stats["v"] == {"groups": 2, "candidates": 18, "avg_candidates": 9.0, "min_candidates": 6, "max_candidates": 12}
    table = ds.format_stats_table(stats)
    assert "Noun" in table and "Verb" in table
    assert [line.split()[-2:] for line in table.splitlines() if "average" in line] == [["5.8", "9.0"]]
    assert "5 / 7" in table and "6 / 12" in table
    assert "Verb" not in ds.format_stats_table(ds.dataset_stats(groups[:5]))


# ---------------------------------------------------------------- sampling


def test_sample_groups_seeded_and_filtered():
    groups = toy_groups(40)  # sizes 5..44
    a = ds.sample_groups(groups, 10, seed=3)
    assert a == ds.sample_groups(groups, 10, seed=3)
    assert a != ds.sample_groups(groups, 10, seed=4)
    assert len(a) == 10 and len(set(g.target for g in a)) == 10
    assert [groups.index(g) for g in a] == sorted(groups.index(g) for g in a)  # dataset order
    small = ds.sample_groups(groups, 3, seed=0, max_candidates=9)
    assert len(small) == 3 and all(g.size <= 9 for g in small)
    assert ds.sample_groups(groups, 100, seed=0, max_candidates=9) == groups[:5]
    assert ds.sample_groups(groups, None) == groups


def test_sample_human_items_and_files(tmp_path):
    groups = toy_groups(30, [5 + (i % 10) for i in range(30)])  # sizes 5..14
    sample = sample_human(groups, n=6, max_candidates=10, seed=7)
    assert sample == sample_human(groups, n=6, max_candidates=10, seed=7)
    assert sample != sample_human(groups, n=6, max_candidates=10, seed=8)
    by_target = {g.target: g for g in groups}
    for task in ("w2d", "d2w"):
        items = sample[task]["items"]
        assert len(items) == 6 and len(sample[task]["groups"]) == 6
        for item in items:
            group = by_target[item["target"]]
            assert group.size <= 10
            assert sorted(o["synset"] for o in item["options"]) == sorted(names(group))
            answer = next(o for o in item["options"] if o["label"] == item["answer"])
            assert answer["synset"] == group.target
            if task == "w2d":
                assert item["prompt"] == group.word and answer["text"] == group.definition
            else:
                assert item["prompt"] == group.definition and answer["text"] == group.word
    # options are shuffled: the answer is not always the first option
    assert {i["answer"] for t in ("w2d", "d2w") for i in sample[t]["items"]} != {"a"}

    paths = write_human_sample(sample, tmp_path / "human")
    saved = json.loads(paths["json"].read_text(encoding="utf-8"))
    assert saved["config"] == {"n": 6, "max_candidates": 10, "seed": 7}
    assert saved["w2d"] == sample["w2d"]["items"]
    sheet = paths["sheet"].read_text(encoding="utf-8")
    assert sheet == format_sheet(sample)
    assert "Word to definition" in sheet and "Definition to word" in sheet
    assert ".n.01" not in sheet and ".v.01" not in sheet  # no synset names give answers away
    key = paths["answer_key"].read_text(encoding="utf-8")
    first = sample["d2w"]["items"][0]
    assert f" 1. ({first['answer']})  {first['target']}" in key
    assert ds.load_groups(paths["w2d_groups"]) == sample["w2d"]["groups"]


def test_sample_human_too_few_groups():
    with pytest.raises(DataError, match="only 1 groups"):
        sample_human(toy_groups(3), n=2, max_candidates=5)


# ---------------------------------------------------------------- CLI


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers()
    wdlmpro_cli.register_commands(sub)
    args = parser.parse_args(argv)
    return args.func(args)


def test_cli_build_stats_sample_human(monkeypatch, tmp_path, capsys):
    fake = toy_wordnet()
    real_build = ds.build_groups
    monkeypatch.setattr(ds, "build_groups", lambda pos, keep_duplicates=False, progress=False, **kw: real_build(pos, keep_duplicates, wn=fake))
    out = tmp_path / "data"
    assert run_cli(["build", "--out", str(out), "--pos", "n", "--keep-duplicates"]) == 0
    assert "wrote 5 noun groups" in capsys.readouterr().out
    assert [g.target for g in ds.load_groups(out / "wdlmpro_n.jsonl")][:2] == ["t.n.01", "a.n.01"]

    assert run_cli(["stats", "--data", str(out), "--pos", "n", "--no-breakdowns"]) == 0
    printed = capsys.readouterr().out
    assert "# of synset groups" in printed and "5.8" in printed and "5 / 7" in printed

    human = tmp_path / "human"
    assert run_cli(["sample-human", "--data", str(out / "wdlmpro_n.jsonl"), "--n", "2", "--max-candidates", "5",
                    "--seed", "1", "--out", str(human)]) == 0
    assert sorted(p.name for p in human.iterdir()) == [
        "human_answer_key.txt", "human_d2w.jsonl", "human_sample.json", "human_sheet.txt", "human_w2d.jsonl"]
    with pytest.raises(DataError, match="only 5 groups have at most 10 candidates"):
        run_cli(["sample-human", "--data", str(out), "--pos", "n", "--n", "6", "--out", str(human)])


def test_lexprobe_cli_stats_and_bad_file(tmp_path, capsys):
    from lexprobe.cli import main

    path = ds.write_jsonl(toy_groups(4, [5, 6, 9, 12]), tmp_path / "g.jsonl")
    assert main(["wdlmpro", "stats", "--data", str(path), "--no-breakdowns"]) == 0
    assert "7.0" in capsys.readouterr().out  # nouns 5 and 9, verbs 6 and 12 -> 7.0 / 9.0
    path.write_text("{oops\n", encoding="utf-8")
    assert main(["wdlmpro", "stats", "--data", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("lexprobe: error:") and "\n" not in err and f"{path}:1:" in err


# ---------------------------------------------------------------- full WordNet (slow)


@pytest.mark.slow
def test_full_counts_match_paper(wn):
    """Table 2: group counts of the deduplicated release; sizes of the keep-duplicates variant.

    Table 6: targets and mean candidates per depth band (depth = nodes on the shortest
    hypernym path), no noun outside the bands; footnote 5: NLTK tokens and the old
    whitespace/hyphen split disagree about "more than 3 tokens" on 133 noun targets.
    """
    import re

    from lexprobe.benchmarks.wdlmpro import attributes as at
    from lexprobe.benchmarks.wdlmpro import attributes as bs

    start = time.perf_counter()
    nouns, verbs = ds.build_groups("n", wn=wn), ds.build_groups("v", wn=wn)
    attrs = [{"depth_band": at.depth_band(at.synset_depth(g.target, wn))} for g in nouns]
    table6 = bs.band_counts(nouns, attrs, "depth_band")["n"]
    assert {band: (n, round(mean)) for band, (n, mean) in table6.items()} == bs.PAPER_DEPTH
    old_rule = lambda w: len([t for t in re.split(r"[\s\-]+", w) if t]) > 3  # noqa: E731
    changed = [g.word for g in nouns if old_rule(g.word) != (len(at.word_tokens(g.word)) > 3)]
    assert len(changed) == 133 and {"ring-around-the-rosy", "white man's burden"} <= set(changed)
    dedup = ds.dataset_stats(nouns + verbs)
    full = ds.dataset_stats(ds.build_groups("n", True, wn=wn) + ds.build_groups("v", True, wn=wn))
    assert (dedup["n"]["groups"], dedup["v"]["groups"]) == (51260, 8487)
    assert (full["n"]["groups"], full["v"]["groups"]) == (51559, 8602)
    assert (round(full["n"]["avg_candidates"], 1), round(full["v"]["avg_candidates"], 1)) == (50.2, 47.7)
    assert (full["n"]["min_candidates"], full["n"]["max_candidates"]) == (5, 404)
    assert (full["v"]["min_candidates"], full["v"]["max_candidates"]) == (5, 593)
    assert (round(dedup["n"]["avg_candidates"], 1), round(dedup["v"]["avg_candidates"], 1)) == (48.7, 43.8)
    assert (dedup["n"]["max_candidates"], dedup["v"]["max_candidates"]) == (400, 473)
    print(f"full WordNet builds: {time.perf_counter() - start:.0f} s")
