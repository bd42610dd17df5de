"""``--model`` is prepared once (#37 item 3): through ``lexprobe coda21 eval`` end to end, the reference's path
is checked once (``outputs.guard`` on ``--model``, ``models.check_model_reference``), ``resolve_model_path``
runs once, the model's configuration is read once and a GGUF file's header once, for an in-process causal,
masked and embedding model and a GGUF file.

The counters wrap the functions themselves, wherever a module holds them, so a second call through any import
is counted; the configuration count is ``PretrainedConfig.get_config_dict``, which every reading of a
``config.json`` goes through (``AutoConfig``, a model's or a tokenizer's ``from_pretrained``)."""

from __future__ import annotations

import json
import sys
from collections import Counter

import pytest

from lexprobe.cli import main


def count_calls(monkeypatch, counts: Counter, module_name: str, name: str) -> None:
    """Count calls of ``module_name.name``, through every loaded lexprobe module holding that function."""
    original = getattr(sys.modules[module_name], name)

    def counted(*args, **kwargs):
        counts[name] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("lexprobe") and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counted)


def count_config_reads(monkeypatch, counts: Counter) -> None:
    from transformers import PretrainedConfig

    original = PretrainedConfig.get_config_dict.__func__

    def counted(cls, *args, **kwargs):
        counts["config"] += 1
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(PretrainedConfig, "get_config_dict", classmethod(counted))


def count_guarded_models(monkeypatch, counts: Counter) -> None:
    """``outputs.guard`` calls that check ``--model``'s path."""
    import lexprobe.outputs as outputs

    original = outputs.guard

    def guard(options, *args, **kwargs):
        options = list(options)
        counts["guard --model"] += sum(1 for o in options if o.option == "--model" and o.value is not None)
        return original(options, *args, **kwargs)

    monkeypatch.setattr(outputs, "guard", guard)


def loads(monkeypatch, argv: list[str]) -> Counter:
    import lexprobe.gguf_models  # noqa: F401  (loaded, so its functions are counted)
    import lexprobe.models  # noqa: F401

    counts: Counter = Counter()
    count_calls(monkeypatch, counts, "lexprobe.model_names", "resolve_model_path")
    count_calls(monkeypatch, counts, "lexprobe.models", "check_model_reference")
    count_calls(monkeypatch, counts, "lexprobe.gguf_models", "metadata")
    count_config_reads(monkeypatch, counts)
    count_guarded_models(monkeypatch, counts)
    assert main(argv) == 0
    return counts


@pytest.fixture(scope="module")
def coda_file(tmp_path_factory):
    from tests import distributed_cases as dc

    return str(dc.coda_groups_file(tmp_path_factory.mktemp("loads")))


@pytest.fixture(scope="module")
def gguf_file(tiny_llama, tmp_path_factory):
    from tests.gguf_models import write_llama_gguf

    return write_llama_gguf(tiny_llama, tmp_path_factory.mktemp("gguf") / "tiny.gguf", "F32")


@pytest.mark.parametrize("kind", ["causal", "masked", "embedding", "gguf"])
def test_the_model_is_prepared_once(kind, coda_file, tmp_path, monkeypatch, request):
    model = request.getfixturevalue({"causal": "tiny_gpt2", "masked": "tiny_bert", "embedding": "minilm_path",
                                     "gguf": "gguf_file"}[kind])
    out = tmp_path / "r.json"
    counts = loads(monkeypatch, ["coda21", "eval", "--data", coda_file, "--model", str(model), "--device", "cpu",
                                 "--out", str(out)])
    print(kind, json.dumps(dict(counts), sort_keys=True), file=sys.__stderr__)
    assert json.loads(out.read_text(encoding="utf-8"))["model"]["kind"] == ("causal" if kind == "gguf" else kind)
    assert counts["guard --model"] == 1 and counts["check_model_reference"] == 1, counts
    assert counts["resolve_model_path"] == 1, counts
    assert counts["config"] == 1, counts
    assert counts["metadata"] == (1 if kind == "gguf" else 0), counts
