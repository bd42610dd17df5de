import json
import random

import pytest

from lexprobe.benchmarks.coda21.human import has_duplicate_contexts, sample_human
from lexprobe.errors import DataError
from tests.optional import missing_shared


def _group(name, contexts):
    return {"common_ancestor_info": {"relation": "grandparent", "ancestor_name": name},
            "candidates": [{"synset_name": f"{name}.{i}", "definition": "d", "contexts": [c],
                            "words_in_contexts": ["x"]} for i, c in enumerate(contexts)]}


def test_sample_is_python_random_42_shuffle_without_duplicate_context_groups():
    groups = [_group(f"g{i}", [f"a{i} x", f"b{i} x"] if i % 4 else ["same x", "same x"]) for i in range(40)]
    picked = sample_human({"n": groups}, size=5, seed=42)
    order = list(range(40))
    random.Random(42).shuffle(order)  # hand recipe: shuffle, skip groups with a repeated context, take 5
    assert picked == [i for i in order if i % 4][:5]
    assert not any(has_duplicate_contexts(groups[i]) for i in picked)
    with pytest.raises(DataError):
        sample_human({"n": groups[:3]}, size=5)


def test_s20_contains_table5_material_group(shared_data, tmp_path, capsys):
    from lexprobe.cli import main

    source = shared_data / "coda21" / "CoDA-clean-easy.json"
    if not source.is_file():
        pytest.skip(missing_shared("coda21/CoDA-clean-easy.json"))
    out = tmp_path / "s20.json"
    assert main(["coda", "sample-human", "--data", str(source), "--out", str(out)]) == 0
    assert "material.n.01" in capsys.readouterr().out
    sample = json.loads(out.read_text())
    assert len(sample["n"]) == 20 and sample["v"] == []
    material = [g for g in sample["n"] if g["common_ancestor_info"]["ancestor_name"] == "material.n.01"]
    assert len(material) == 1 and len(material[0]["candidates"]) == 7
    assert {c["synset_name"] for c in material[0]["candidates"]} == {
        "dust.n.01", "marble.n.01", "effluent.n.01", "feather.n.01", "fraction.n.01", "soil.n.02", "card.n.01"}
    assert "n/266" in sample["sample"]["groups"]
    # numpy's generator with the same seed gives a sample without Table 5's group
    import numpy as np

    np_order = [int(i) for i in np.random.RandomState(42).permutation(274)]
    full = json.loads(source.read_text())["n"]
    assert 266 not in [i for i in np_order if not has_duplicate_contexts(full[i])][:20]
