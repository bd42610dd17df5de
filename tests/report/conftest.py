"""Result files of every benchmark from the tests' tiny models and the random scorer."""

from __future__ import annotations

import pytest

from lexprobe.cli import main


@pytest.fixture(scope="session")
def result_files(tmp_path_factory, tiny_bert, tiny_gpt2):
    """{name: path}: WDLMPro by the random scorer and the tiny BERT, CoDA21 by the random scorer and the
    tiny GPT-2, sense ranking with the tiny BERT at two layers."""
    from lexprobe.benchmarks.evaluate import evaluate
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
    from lexprobe.reporting import write_json
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small
    from tests.benchmarks.senserank.test_evaluate import _instances

    folder = tmp_path_factory.mktemp("results")
    wdl = folder / "wdlmpro-data.jsonl"
    write_jsonl(build_groups("v", targets=["beckon.v.01", "wink.v.01"])
                + build_groups("n", targets=["crooning.n.01"]), wdl)
    coda = write_small(folder / "coda-small.json")
    files = {}
    for bench, name, model in (("wdlmpro", "random", "random"), ("wdlmpro", "bert", tiny_bert),
                               ("coda21", "random", "random"), ("coda21", "gpt2", tiny_gpt2)):
        out = files[f"{bench}-{name}"] = folder / f"{bench}-{name}.json"
        command = ["wdlmpro", "eval", "--data", str(wdl)] if bench == "wdlmpro" else ["coda", "eval", "--data", str(coda)]
        assert main(command + ["--model", str(model), "--out", str(out), "--device", "cpu"]) == 0
    for layer in (-1, 1):
        result = evaluate("senserank", load_scorer(str(tiny_bert), kind="token", device="cpu", layer=layer),
                          SenseConfig(corpus="synthetic", k=10, layer=layer), items=_instances(), progress=False)
        files[f"senserank-layer{layer}"] = write_json(folder / f"senserank-layer{layer}.json", result)
    return files
