"""``--model`` and its options are prepared once (#37 item 3), counted through ``lexprobe coda21 eval`` end to end
for an in-process causal, masked and embedding model and a GGUF file:

- the reference's path is checked once: ``regular_files.require_regular`` on it (``outputs.guard``: the command's
  declared-path guard; the later guard of its outputs compares it without checking it again) and
  ``models.check_model_reference`` (a local-looking reference exists);
- ``resolve_model_path`` runs once (``models.inspect_model``; the run record reuses its answer);
- the model's configuration is read once by lexprobe: ``PretrainedConfig.get_config_dict``, which every reading of
  a ``config.json`` goes through (``AutoConfig``, a model's or a tokenizer's ``from_pretrained``), counted apart
  where sentence-transformers reads it inside its own loader; a GGUF file's header once;
- ``--batch-size`` is parsed once (its declared checker, ``backends.options.batch_size``: by argparse; the
  backend's check and the load take the parsed value).

Before #37 the same runs counted: the path checked 3 times (two guards and ``check_model_reference``),
``resolve_model_path`` 3, configuration reads 4 (causal, masked; the embedding model: lexprobe 1 and
sentence-transformers 3; GGUF: 3 with a cached conversion), the GGUF header 3, ``--batch-size`` parsed 3 times.
The counters wrap the functions themselves, wherever a module holds them, so a call through any import counts."""

from __future__ import annotations

import dataclasses
import json
import sys
import traceback
from collections import Counter
from pathlib import Path

import pytest

from lexprobe.cli import main


def count_calls(monkeypatch, counts: Counter, module_name: str, name: str, counted_if=lambda *a, **k: True) -> None:
    """Count calls of ``module_name.name`` (those ``counted_if`` accepts), through every lexprobe module holding it."""
    original = getattr(sys.modules[module_name], name)

    def counted(*args, **kwargs):
        if counted_if(*args, **kwargs):
            counts[name] += 1
        return original(*args, **kwargs)

    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("lexprobe") and getattr(module, name, None) is original:
            monkeypatch.setattr(module, name, counted)


def count_config_reads(monkeypatch, counts: Counter) -> None:
    from transformers import PretrainedConfig

    original = PretrainedConfig.get_config_dict.__func__

    def counted(cls, *args, **kwargs):
        inside = any("sentence_transformers" in frame.filename for frame in traceback.extract_stack())
        counts["config (sentence-transformers)" if inside else "config"] += 1
        return original(cls, *args, **kwargs)

    monkeypatch.setattr(PretrainedConfig, "get_config_dict", classmethod(counted))


def count_batch_size_parses(monkeypatch, counts: Counter) -> None:
    """The declared checker of ``--batch-size``, wherever the declaration is read (argparse, ``check_options``)."""
    from lexprobe.backends import options

    declared = options.BY_NAME["batch_size"]

    def parse(value):
        counts["batch_size parsed"] += 1
        return declared.check(value)

    counting = dataclasses.replace(declared, check=parse)
    monkeypatch.setattr(options, "MODEL_OPTIONS", tuple(counting if o is declared else o for o in options.MODEL_OPTIONS))
    monkeypatch.setitem(options.BY_NAME, "batch_size", counting)


def loads(argv: list[str], model: str) -> Counter:
    import lexprobe.models.gguf  # noqa: F401  (loaded, so their functions are counted)
    import lexprobe.models  # noqa: F401
    import lexprobe.regular_files  # noqa: F401

    counts: Counter = Counter()
    with pytest.MonkeyPatch.context() as monkeypatch:  # the counters, for this run only
        count_calls(monkeypatch, counts, "lexprobe.regular_files", "require_regular",
                    lambda path, *a, **k: Path(path).resolve() == Path(model).resolve())
        count_calls(monkeypatch, counts, "lexprobe.models", "check_model_reference")
        count_calls(monkeypatch, counts, "lexprobe.model_names", "resolve_model_path")
        count_calls(monkeypatch, counts, "lexprobe.models.gguf", "metadata")
        count_config_reads(monkeypatch, counts)
        count_batch_size_parses(monkeypatch, counts)
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


def run(kind: str, model, coda_file: str, out: Path) -> Counter:
    counts = loads(["coda21", "eval", "--data", coda_file, "--model", str(model), "--device", "cpu",
                    "--batch-size", "4", "--out", str(out)], str(model))
    print(kind, json.dumps(dict(counts), sort_keys=True), file=sys.__stderr__)  # the figures, with -s
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["model"]["kind"] == ("causal" if kind.startswith("gguf") else kind)
    assert result["run"]["batch_size"] == 4
    return counts


@pytest.mark.parametrize("kind", ["causal", "masked", "embedding"])
def test_the_model_is_prepared_once(kind, coda_file, tmp_path, request):
    model = request.getfixturevalue({"causal": "tiny_gpt2", "masked": "tiny_bert", "embedding": "minilm_path"}[kind])
    counts = run(kind, model, coda_file, tmp_path / "r.json")
    assert counts["require_regular"] == 1 and counts["check_model_reference"] == 1, counts
    assert counts["resolve_model_path"] == 1 and counts["config"] == 1 and counts["metadata"] == 0, counts
    assert counts["batch_size parsed"] == 1, counts
    # sentence-transformers reads the configuration inside its own loader (its AutoConfig, processor, tokenizer)
    assert counts["config (sentence-transformers)"] == (3 if kind == "embedding" else 0), counts


def test_a_gguf_file_is_prepared_once(gguf_file, coda_file, tmp_path):
    """The first load converts the file (its configuration read from the GGUF by transformers, then the
    de-quantised copy's once); the second finds the copy cached."""
    converting = run("gguf (converted)", gguf_file, coda_file, tmp_path / "a.json")
    cached = run("gguf (cached)", gguf_file, coda_file, tmp_path / "b.json")
    for counts, config_reads in ((converting, 2), (cached, 1)):
        assert counts["require_regular"] == 1 and counts["check_model_reference"] == 1, counts
        assert counts["resolve_model_path"] == 1 and counts["metadata"] == 1, counts
        assert counts["config"] == config_reads and counts["batch_size parsed"] == 1, counts


def test_an_endpoint_refuses_batch_size_auto_in_one_line(coda_file, capsys, tmp_path):
    """``--batch-size auto`` searches a device's memory in this process; an endpoint's server batches itself, so
    the value is refused by the backend's declaration (it once became 8 silently, the run record saying auto)."""
    from lexprobe.errors import ModelError
    from lexprobe.models import load_scorer

    with pytest.raises(ModelError, match=r"--batch-size auto does not apply to an OpenAI-compatible endpoint .*"
                                         r"--batch-size N, default 8"):
        load_scorer("http://127.0.0.1:9/v1", batch_size="auto")
    assert main(["coda21", "eval", "--data", coda_file, "--model", "http://127.0.0.1:9/v1",
                 "--batch-size", "auto", "--out", str(tmp_path / "r.json")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--batch-size auto does not apply" in err, err
    assert not (tmp_path / "r.json").exists()


def test_a_runs_options_are_checked_once(coda_file, tmp_path, tiny_gpt2):
    """``lexprobe coda21 eval`` checks its config in one prepare step (``core.evaluate.prepare``) and ``evaluate``
    takes it as checked. Before, the command and ``evaluate`` each checked: options of another method twice, the
    benchmark's ``items.check`` twice, the method and recipe names twice."""
    import dataclasses as dc

    from lexprobe.core import registry

    counts: Counter = Counter()
    bench = registry.get("coda21")
    original_check = bench.items.check

    def items_check(config):
        counts["items.check"] += 1
        return original_check(config)

    counted_bench = dc.replace(bench, items=dc.replace(bench.items, check=items_check))
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setitem(registry.REGISTRY, "coda21", counted_bench)
        for name in ("check_method_options", "check_nested_options"):
            count_calls(monkeypatch, counts, "lexprobe.core.options", name)
        count_calls(monkeypatch, counts, "lexprobe.core.options", "check_declared",
                    lambda config, *a, **k: type(config) is bench.Config)  # the config, not its nested groups
        count_calls(monkeypatch, counts, "lexprobe.core.contract", "recipe_named")
        out = tmp_path / "r.json"
        assert main(["coda21", "eval", "--data", coda_file, "--model", str(tiny_gpt2), "--device", "cpu",
                     "--out", str(out)]) == 0
    assert json.loads(out.read_text(encoding="utf-8"))["benchmark"] == "coda21"
    assert counts == {"items.check": 1, "check_method_options": 1, "check_nested_options": 1, "check_declared": 1,
                      "recipe_named": 1}, counts
