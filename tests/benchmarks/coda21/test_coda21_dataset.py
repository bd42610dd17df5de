import json

import pytest

from lexprobe.benchmarks.coda21.dataset import (
    coda_stats,
    find_target,
    format_stats,
    groups_to_official,
    load_coda,
    parse_coda,
    replace_target,
)
from lexprobe.errors import DataError
from tests.benchmarks.coda21.helpers import small_coda, write_small
from tests.optional import missing_shared

OFFICIAL = {  # Table 1 of the paper: (groups, unique synsets) per POS
    "CoDA-clean-hard.json": {"n": (106, 740), "v": (102, 711)},
    "CoDA-clean-easy.json": {"n": (274, 1999), "v": (103, 758)},
    "CoDA-noisy-hard.json": {"n": (691, 4633), "v": (350, 2527)},
}


@pytest.mark.parametrize("name", sorted(OFFICIAL))
def test_official_files_match_table_1(shared_data, name):
    path = shared_data / "coda21" / name
    if not path.exists():
        pytest.skip(missing_shared(f"coda21/{name}"))
    data = load_coda(path)
    assert data.problems == []
    stats = coda_stats(data)
    for pos, (groups, usc) in OFFICIAL[name].items():
        assert (stats[pos]["groups"], stats[pos]["unique_synsets"]) == (groups, usc)
        assert 5 <= stats[pos]["k_min"] and stats[pos]["k_max"] <= 10
    assert stats["n"]["relations"] == (["grandparent"] if "easy" in name else ["parent"])
    assert "# of G" in format_stats(stats)


def test_loader_reads_small_file_and_ignores_canary(tmp_path):
    data = load_coda(write_small(tmp_path / "c.json"))
    assert [g.id for g in data.groups] == ["n/0", "n/1", "v/0"]
    g = data.groups[0]
    assert (g.pos, g.relation, g.ancestor, g.k) == ("n", "grandparent", "material.n.01", 3)
    assert g.candidates[2].word == "feathers"
    assert g.candidates[2].synset == "feather.n.01"


def test_malformed_groups_are_named_and_skipped(tmp_path):
    obj = small_coda()
    bad_missing = {"candidates": [{"synset_name": "x.n.01", "definition": "d"}] * 2}
    bad_small = {"candidates": obj["n"][0]["candidates"][:1]}
    bad_target = json.loads(json.dumps(obj["n"][1]))
    bad_target["candidates"][0]["words_in_contexts"] = ["zebra"]
    obj["n"] += [bad_missing, bad_small, bad_target, "nonsense"]
    data = load_coda(write_small(tmp_path / "c.json", obj))
    assert [g.id for g in data.groups] == ["n/0", "n/1", "v/0"]
    reasons = {p.group_id: p.reason for p in data.problems}
    assert "lacks contexts, words_in_contexts" in reasons["n/2"]
    assert "at least 2" in reasons["n/3"]
    assert "'zebra'" in reasons["n/4"] and "not found" in reasons["n/4"]
    assert "not an object" in reasons["n/5"]
    assert str(data.problems[0]).startswith("group n/2:")
    assert coda_stats(data)["n"]["skipped"] == 4


def test_file_level_errors(tmp_path):
    with pytest.raises(DataError, match="not found"):
        load_coda(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(DataError, match="not valid JSON"):
        load_coda(tmp_path / "bad.json")
    with pytest.raises(DataError, match="keys 'n' and/or 'v'"):
        parse_coda([1, 2])


def test_whole_word_replacement():
    # the released code replaced substrings: "art" inside "party" stayed untouched here
    assert replace_target("the party art and art .", "art", "X") == "the party X and X ."
    assert replace_target("Dust and dust", "dust", "X") == "Dust and X"
    assert replace_target("Dust rose", "dust", "X") == "X rose"  # case-insensitive only as a fallback
    assert replace_target("clouds of dust , shouting", "dust", "") == "clouds of , shouting"
    assert find_target("East-West Contacts Staff met", "East-West Contacts Staff") == [(0, 24)]
    with pytest.raises(ValueError):
        replace_target("nothing here", "dust", "X")


def test_official_round_trip(tmp_path):
    data = load_coda(write_small(tmp_path / "c.json"))
    again = parse_coda(groups_to_official(data.groups))
    assert [(g.id, g.relation, g.ancestor, g.candidates) for g in again.groups] == \
           [(g.id, g.relation, g.ancestor, g.candidates) for g in data.groups]
