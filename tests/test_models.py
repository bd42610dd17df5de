import pytest

from lexprobe.errors import ModelError
from lexprobe.models import detect_kind, load_scorer, resolve_model_path


def test_detects_kinds(tiny_bert, tiny_roberta, tiny_gpt2, minilm_path, tmp_path):
    assert detect_kind(str(tiny_bert)) == "masked"
    assert detect_kind(str(tiny_roberta)) == "masked"
    assert detect_kind(str(tiny_gpt2)) == "causal"
    assert detect_kind("all-MiniLM-L6-v2") == "embedding"
    assert detect_kind("random") == "random"
    vec = tmp_path / "v.vec"
    vec.write_text("dog 1 0\n")
    assert detect_kind(str(vec)) == "static"


def test_default_model_resolves_to_bundled_copy(minilm_path):
    assert resolve_model_path("all-MiniLM-L6-v2") == str(minilm_path)
    assert resolve_model_path("some/other-model") == "some/other-model"


def test_forced_kind_without_head_is_an_error(minilm_path):
    with pytest.raises(ModelError, match="no trained masked-LM head"):
        load_scorer("all-MiniLM-L6-v2", kind="masked")


def test_forced_wrong_lm_kind_is_an_error(tiny_roberta, tiny_gpt2):
    with pytest.raises(ModelError, match="is a masked LM"):
        load_scorer(str(tiny_roberta), kind="causal")
    with pytest.raises(ModelError, match="is a causal LM"):
        load_scorer(str(tiny_gpt2), kind="masked")


def test_unknown_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelError, match="cannot load model"):
        load_scorer(str(tmp_path / "no-such-model"))
    with pytest.raises(ModelError, match="unknown kind"):
        load_scorer("random", kind="telepathic")


def test_bare_encoder_loads_as_embedding(tiny_bert, tmp_path):
    from transformers import AutoModel, AutoTokenizer

    AutoModel.from_pretrained(tiny_bert).save_pretrained(tmp_path / "enc")
    AutoTokenizer.from_pretrained(tiny_bert).save_pretrained(tmp_path / "enc")
    assert detect_kind(str(tmp_path / "enc")) == "embedding"
    with pytest.raises(ModelError, match="masked-LM head"):
        load_scorer(str(tmp_path / "enc"), kind="masked")
