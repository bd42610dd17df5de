"""Layer sweeps: one forward pass for all layers gives exactly the per-layer single runs,
for an encoder (BERT) and a decoder LM (Llama)."""

from lexprobe.core.contract import format_result
import numpy as np
import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.asking.requests import TokenVector
from lexprobe.core.registry import get
from lexprobe.benchmarks.senserank.config import SenseConfig, parse_layers
from lexprobe.benchmarks.senserank.plot import plot_sweep
from lexprobe.errors import LexprobeError
from lexprobe.models import load_scorer
from tests.benchmarks.senserank.test_evaluate import _instances
from tests.scorers.test_token_embeddings import vectors_of


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_llama"])
def test_sweep_equals_single_layer_runs(fixture, request, tmp_path):
    path = str(request.getfixturevalue(fixture))
    instances = _instances()
    embedder = load_scorer(path, kind="token", device="cpu")
    result = evaluate("senserank", embedder, SenseConfig(corpus="synthetic", k=10, layers="all"), items=instances,
                      progress=False)
    assert list(result["sweep"]["values"]) == ["0", "1", "2"]
    assert embedder.stats["forward_batches"] == 1  # all layers of the one batch in one pass
    for layer in (0, 1, 2):
        single = evaluate("senserank", load_scorer(path, kind="token", layer=layer, device="cpu"),
                          SenseConfig(corpus="synthetic", k=10, layer=layer), items=instances, progress=False)
        assert result["sweep"]["values"][str(layer)]["metrics"] == single["metrics"]
        assert result["sweep"]["values"][str(layer)]["baselines"] == single["baselines"]
    assert f"\n{result['sweep']['best']} (best) " in format_result(get("senserank"), result)  # the best layer's row
    assert plot_sweep(result, tmp_path / "layers.png").stat().st_size > 1000


def test_layer_vectors_equal_single_layer_embedder(tiny_llama):
    """Requests of several layers in one call (-1 and 2 the same hidden states) equal the embedder read at each."""
    instances = _instances()[:6]
    every = load_scorer(str(tiny_llama), kind="token", device="cpu")
    requests = {layer: [TokenVector(i.tokens, i.index, layer) for i in instances] for layer in (0, -1, 1)}
    got = every.token_vectors([r for layer in requests for r in requests[layer]])
    assert every.stats["sentences_encoded"] == len({i.tokens for i in instances})  # every layer from one pass
    by_layer = {layer: got[k * len(instances):(k + 1) * len(instances)] for k, layer in enumerate(requests)}
    for layer, asked in ((0, 0), (1, 1), (2, -1)):
        one, ok = vectors_of(load_scorer(str(tiny_llama), kind="token", layer=layer, device="cpu"), instances)
        assert ok.all() and all(v is not None for v in by_layer[asked])
        np.testing.assert_allclose(np.stack(by_layer[asked]), one, atol=1e-5)


def test_decoder_vectors_ignore_padding_and_later_words(tiny_llama, tiny_qwen2):
    """A causal model's vector of a word depends only on the words up to it, padded in a batch or not
    (the Qwen2 tokenizer pads on the left by default)."""
    from lexprobe.data.instances import SenseInstance

    short = ("the", "dog", "is")
    long = ("the", "dog", "is", "a", "small", "animal", "and", "water")
    batch = [SenseInstance("d1", short, 1, "dog", "n", "dog_1", "train"),
             SenseInstance("d2", long, 1, "dog", "n", "dog_1", "train")]
    for path in (tiny_llama, tiny_qwen2):
        emb = load_scorer(str(path), kind="token", device="cpu")
        together, _ = vectors_of(emb, batch)
        alone, _ = emb.embed_sentence(short, [1])
        np.testing.assert_allclose(together[0], alone[0], atol=1e-5)
        np.testing.assert_allclose(together[1], alone[0], atol=1e-5)


def test_layer_and_layers_exclude_each_other(tmp_path, capsys):
    from lexprobe.cli import main

    assert main(["senserank", "eval", "--layer", "2", "--layers", "all", "--out", str(tmp_path / "x.json")]) == 2
    assert "exclude each other" in capsys.readouterr().err


def test_parse_layers():
    assert parse_layers("all") == "all"
    assert parse_layers("0,3-5,-1") == [0, 3, 4, 5, -1]
    for bad in ("x", "5-3", "1,,2"):
        with pytest.raises(LexprobeError, match="--layers"):
            parse_layers(bad)


def test_a_sweep_interrupted_resumes_from_its_store_and_per_layer_logs(tiny_llama, tmp_path, monkeypatch):
    """Ctrl-C while embedding (after two chunks of 4 sentences) and again while ranking the second layer:
    the rerun embeds only the sentences not stored, ranks only the layers not logged, and gives the
    uninterrupted result; once it is written, the store and the per-layer logs are gone."""
    import lexprobe.benchmarks.senserank.similarity as ev

    path = str(tiny_llama)
    instances = _instances()
    cfg = SenseConfig(corpus="synthetic", k=10, layers="all")

    def sweep(embedder, out=None):
        return evaluate("senserank", embedder, cfg, out, items=instances, progress=False)

    def embedder():
        return load_scorer(path, kind="token", device="cpu", batch_size=1)  # chunks of 4 sentences

    full = sweep(embedder())
    out = tmp_path / "sweep.json"
    first = embedder()
    real_encode, calls = first.encode_jobs, []

    def encode(jobs, layers=None):
        calls.append(len(jobs))
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real_encode(jobs, layers)

    monkeypatch.setattr(first, "encode_jobs", encode)
    with pytest.raises(KeyboardInterrupt):
        sweep(first, out)
    assert calls[:2] == [4, 4]
    second = embedder()
    real_rank, ranked = ev.rank_lemma, []

    def rank(*args, **kwargs):
        ranked.append(1)
        if len(ranked) == 2:  # the second layer's first lemma
            raise KeyboardInterrupt
        return real_rank(*args, **kwargs)

    monkeypatch.setattr(ev, "rank_lemma", rank)
    with pytest.raises(KeyboardInterrupt):
        sweep(second, out)
    # the two stored chunks are not embedded again (the store keeps each distinct sentence once)
    assert second.stats["sentences_encoded"] == full["counts"]["sentences_encoded"] - 8
    assert (tmp_path / "sweep.json.layer0.partial.jsonl").exists()
    ranked.clear()
    monkeypatch.setattr(ev, "rank_lemma", lambda *a, **k: ranked.append(1) or real_rank(*a, **k))
    third = embedder()
    resumed = sweep(third, out)
    assert third.stats["sentences_encoded"] == 0 and len(ranked) == 2  # layers 1 and 2: one lemma each
    assert resumed["sweep"] == full["sweep"] and resumed["metrics"] == full["metrics"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sweep.json", "sweep.png"]  # store and logs removed
