"""End to end: evaluation on synthetic instances with the tiny BERT, the CLI, and fine-tuning."""

from lexprobe.core.contract import format_result
import functools
import json

import numpy as np
import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.benchmarks.senserank.config import SenseConfig
from lexprobe.benchmarks.senserank.plot import save_curves_plot
from lexprobe.data.instances import SenseInstance
from lexprobe.metrics import retrieval as R
from lexprobe.core.registry import get
from lexprobe.models import load_scorer

CONTEXTS = {
    "hand_1": ["a {} signal", "the {} signal is a wink"],
    "hand_2": ["water and {}", "the dog and the {}"],
}


def _instances():
    out, n = [], 0
    for label, templates in CONTEXTS.items():
        for rep in range(7):
            for t in templates:
                words = tuple((t.format("hand") + (" ." * (rep % 3))).split())
                split = "test" if rep == 0 else "train"
                out.append(SenseInstance(f"doc{n}", words, words.index("hand"), "hand", "n", label, split, "1"))
                n += 1
    # a lemma with a rare sense in D: its query is dropped
    out.append(SenseInstance("r1", ("the", "song"), 1, "song", "n", "song_1", "train", "1"))
    out.append(SenseInstance("r2", ("a", "song"), 1, "song", "n", "song_1", "test", "1"))
    return out


def test_evaluate_end_to_end(tiny_bert, tmp_path):
    result = evaluate("senserank", load_scorer(str(tiny_bert), kind="token", device="cpu"),
                      SenseConfig(corpus="synthetic", k=10), items=_instances(), progress=False)
    c = result["counts"]
    assert (c["database"], c["queries"], c["ranked_queries"], c["dropped_rare_sense"]) == (25, 5, 4, 1)
    m = result["metrics"]["synthetic"]
    assert m["all"]["n"] == 4
    # recompute the summary from the per-query records
    outs = [R.QueryOutcome(np.array([int(h) for h in q["hits"]]), q["n_relevant"], q["n_candidates"])
            for q in result["instances"]]
    again = R.summarize(outs, k=10)
    assert m["all"]["pooled"] == pytest.approx(again["pooled"])
    assert m["all"]["map"] == pytest.approx(np.mean([q["ap"] for q in result["instances"]]), abs=1e-5)
    for q in result["instances"]:
        assert (q["n_candidates"], q["n_relevant"]) == (24, 12)
        assert q["bucket"] == "l<500 0.25<=r<1"
        assert len(q["hits"]) == 10
    cell = "l<500 0.25<=r<1"
    assert m[cell]["n"] == 4 and result["baselines"]["random"]["synthetic"][cell]["pooled"] == pytest.approx(0.5)
    assert result["baselines"]["oracle"]["synthetic"][cell]["pooled"] == pytest.approx(1.0)
    text = format_result(get("senserank"), result)  # the report's tables as console text
    assert "Random (exact)" in text and "Oracle" in text and "l>=500 r<0.25" in text
    png = tmp_path / "curves.png"
    save_curves_plot(result, png)
    assert png.stat().st_size > 1000
    json.dumps(result)  # serialisable


def test_limit_and_lemma_sample():
    from lexprobe.benchmarks.senserank.similarity import select_instances

    insts = _instances()
    db, qs, info = select_instances(insts, SenseConfig(limit=2, seed=1))
    assert len(qs) == 2 and all(q.lemma == "hand" for q in qs) and len(db) == 24
    db, qs, info = select_instances(insts, SenseConfig(max_instances=10))
    assert db == [] and qs == [] and info["sampled_lemmas"] == 0  # "hand" (28 instances) does not fit


VIS_LINES = [
    "reviews-{n}-0001\tThe|DET dog|N-n.ANIMAL is|AUX singing|V-v.communication a|DET song|N-n.COMMUNICATION "
    "for|P-p.Beneficiary the|DET cat|N-n.ANIMAL .|PUNCT",
    "reviews-{n}-0002\tA|DET person|N-n.PERSON makes|V-v.creation a|DET bow|N-n.ACT with|P-p.Manner:p.Manner "
    "one|NUM hand|N-n.BODY .|PUNCT",
    "reviews-{n}-0003\tthe|DET small|ADJ animal|N-n.ANIMAL is|V-v.stative in|P-p.Locus the|DET water|N-n.SUBSTANCE",
]


def _streusle_dir(tmp_path):
    root = tmp_path / "streusle"
    for split in ("train", "dev", "test"):
        (root / split).mkdir(parents=True)
        text = "\n".join(line.format(n=f"{split}{n}") for n in range(3) for line in VIS_LINES) + "\n"
        (root / split / f"streusle.ud_{split}.vis").write_text(text)
    return root


def test_finetune_end_to_end_and_eval_via_cli(tiny_bert, tmp_path, capsys, monkeypatch):
    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune
    from lexprobe.cli import main
    from lexprobe.data import streusle

    # lower-case lemmas (real WordNet is slow to load); a fresh lemma cache, restored afterwards
    monkeypatch.setattr(streusle, "_wordnet", lambda: None)
    monkeypatch.setattr(streusle, "_lemma", functools.lru_cache(None)(streusle._lemma.__wrapped__))

    root = _streusle_dir(tmp_path)
    out = tmp_path / "ft"
    summary = finetune(FinetuneConfig(model=str(tiny_bert), instances=7, out=str(out), path=str(root),
                                      epochs=3, patience=2, lr=1e-3, batch_size=4, device="cpu", seed=0),
                       progress=False)
    assert summary["train_by_pos"] == {"n": 3, "v": 2, "p": 2}
    assert 1 <= summary["epochs_run"] <= 3 and 0.0 <= summary["best_dev_accuracy"] <= 1.0
    assert (out / "config.json").exists() and (out / "model.safetensors").exists()
    assert (out / "supersense_head.pt").exists()
    # the fine-tuned encoder differs from the original and evaluates like any model
    before = load_scorer(str(tiny_bert), kind="token", device="cpu").embed_sentence(("the", "dog"), [1])[0]
    after = load_scorer(str(out), kind="token", device="cpu").embed_sentence(("the", "dog"), [1])[0]
    assert not np.allclose(before, after)
    res = tmp_path / "res.json"
    code = main(["senserank", "eval", "--corpus", "streusle", "--path", str(root), "--model", str(out),
                 "--min-sense-count", "2", "--device", "cpu", "--out", str(res)])
    assert code == 0
    data = json.loads(res.read_text())
    assert data["benchmark"] == "senserank" and data["tasks"] == ["streusle"]
    assert data["metrics"]["streusle"]["all"]["n"] > 0 and res.with_suffix(".png").exists()
    assert "Oracle" in capsys.readouterr().out


def test_finetune_same_seed_same_sample(tmp_path):
    import random

    from lexprobe.benchmarks.senserank.finetune import sample_balanced
    from lexprobe.data.streusle import read_split
    from lexprobe.errors import DataError

    pool = read_split(_streusle_dir(tmp_path), "train", lemmatize=False)
    a = sample_balanced(pool, 6, random.Random(5))
    assert a == sample_balanced(pool, 6, random.Random(5))
    with pytest.raises(DataError, match="only"):
        sample_balanced(pool, 100, random.Random(0))


def test_cli_errors(capsys, tmp_path):
    from lexprobe.cli import main

    assert main(["senserank", "eval", "--corpus", "ontonotes", "--out", str(tmp_path / "x.json")]) == 2
    assert "--path" in capsys.readouterr().err


@pytest.mark.parametrize("change, message", [
    ({"limit": 0}, "--limit must be at least 1, got 0"), ({"k": -1}, "--k must be at least 1, got -1"),
    ({"recipe": "theirs"}, "unknown --recipe 'theirs'; use paper, authors"),
    ({"bucket_by": "pos"}, "unknown --bucket-by 'pos'; use sense, lemma"), ({"max_instances": 1.5}, "--max-instances"),
    ({"freq_edges": "500,0"}, "--freq-edges"), ({"layers": ""}, "--layers"),
    ({"layers": "all", "layer": 2}, "exclude each other"),
])
def test_config_is_checked_in_one_place_for_python_callers(change, message):
    """The declarations (``options.check_declared``) and ``SenseConfig.validate`` (what ``evaluate`` calls before
    loading anything): one line per bad option."""
    from lexprobe.errors import LexprobeError

    with pytest.raises(LexprobeError, match=message):
        evaluate("senserank", "random", SenseConfig(corpus="synthetic", **change), items=_instances(), progress=False)
