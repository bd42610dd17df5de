"""Result files of every benchmark and method from the tests' tiny models and the random scorer."""

from __future__ import annotations

import pytest

from lexprobe.cli import main


@pytest.fixture(scope="session")
def result_files(tmp_path_factory, tiny_bert, tiny_gpt2):
    """{name: path}: WDLMPro by the random scorer and the tiny BERT, CoDA21 by the random scorer and the
    tiny GPT-2, sense ranking with the tiny BERT at two layers."""
    from lexprobe.core.evaluate import evaluate
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


def scripted_answers(text):
    """A stand-in for a causal LM's ``generations`` (``Generate`` requests) that always answers ``text``."""
    return lambda scorer, requests, progress=False: [text] * len(requests)


@pytest.fixture(scope="session")
def llm_files(tmp_path_factory, tiny_llama, tiny_bert):
    """The results of docs/llm.md: ask-to-choose runs of WDLMPro and CoDA21 (generation scripted), their
    likelihood runs on the same items, a sense-ranking layer sweep."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from lexprobe.reporting import write_json
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small
    from tests.benchmarks.senserank.test_evaluate import _instances

    folder = tmp_path_factory.mktemp("llm")
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    wdl = write_jsonl(GROUPS, folder / "wdl.jsonl")
    coda = write_small(folder / "coda.json")
    files = {}
    model = ["--model", str(tiny_llama), "--device", "cpu"]
    runs = {  # name: (command, scripted generation or None)
        "wdl-choose-a": (["wdlmpro", "eval", "--data", str(wdl), "--method", "choose"], "1"),
        "wdl-choose-b": (["wdlmpro", "eval", "--data", str(wdl), "--method", "choose"], "2"),
        "wdl-choose-p2": (["wdlmpro", "eval", "--data", str(wdl), "--method", "choose", "--permutations", "2",
                           "--reading", "likelihood"], None),
        "wdl-paper": (["wdlmpro", "eval", "--data", str(wdl)], None),
        "coda-choose": (["coda", "eval", "--data", str(coda), "--method", "choose"], "1: A, 2: B"),
        "coda-paper": (["coda", "eval", "--data", str(coda)], None),
    }
    for name, (command, answer) in runs.items():
        out = files[name] = folder / f"{name}.json"
        with pytest.MonkeyPatch.context() as mp:
            if answer is not None:
                mp.setattr("lexprobe.scorers.causal.CausalTokenization.generations", scripted_answers(answer))
            assert main(command + model + ["--out", str(out)]) == 0
    result = evaluate("senserank", load_scorer(str(tiny_bert), kind="token", device="cpu"),
                      SenseConfig(corpus="synthetic", k=10, layers="all"), items=_instances(), progress=False)
    files["sweep"] = write_json(folder / "sweep.json", result)
    return files


#: one result of every benchmark and method: paper/likelihood (WDLMPro, CoDA21), similarity at one layer and
#: a layer sweep (sense ranking), ask-to-choose (WDLMPro with two option orders, CoDA21), the random scorer
EVERY_KIND = {"result_files": ("wdlmpro-random", "wdlmpro-bert", "coda21-random", "coda21-gpt2", "senserank-layer1"),
              "llm_files": ("wdl-choose-a", "wdl-choose-p2", "coda-choose", "sweep")}


@pytest.fixture(scope="session")
def every_kind_of_result(result_files, llm_files) -> list:
    """Paths of ``EVERY_KIND``."""
    return [result_files[k] for k in EVERY_KIND["result_files"]] + [llm_files[k] for k in EVERY_KIND["llm_files"]]
