"""A tiny Llama written as a GGUF file with the ``gguf`` package, as llama.cpp's converter writes one.

``write_llama_gguf`` takes a Hugging Face Llama folder (``tests.tiny_models.build_tiny_llama``)
and writes its weights (float32, or quantised with ``gguf.quants``), its byte-level BPE
tokenizer (vocabulary, merges, token types, BOS/EOS, add-BOS flag) and its chat template
as GGUF metadata. Tensor names come from ``gguf.TensorNameMap``; the query and key
projections are permuted the way llama.cpp's ``convert_hf_to_gguf.py`` (LlamaModel.permute)
does, which transformers undoes when it reads the file. ``dequantised_copy`` saves the
same model with the weights the quantised file really holds, as safetensors: the
reference a GGUF load must equal.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np


def _permute(w: np.ndarray, n_head: int, n_head_kv: int | None = None) -> np.ndarray:
    """llama.cpp's ``LlamaModel.permute``: rotary halves interleaved as GGML computes them."""
    if n_head_kv is not None and n_head != n_head_kv:
        n_head = n_head_kv
    return w.reshape(n_head, 2, w.shape[0] // n_head // 2, *w.shape[1:]).swapaxes(1, 2).reshape(w.shape)


def _stored(name: str, w: np.ndarray, qtype):
    """(array to write, raw dtype) of a tensor: matrices quantised to ``qtype``, vectors kept in float32."""
    import gguf

    if qtype == gguf.GGMLQuantizationType.F32 or w.ndim == 1:
        return w.astype(np.float32), None
    return gguf.quants.quantize(w.astype(np.float32), qtype), qtype


def _tensors(model):
    """(GGUF name, float32 array) of every weight, q/k permuted, in the converter's order."""
    import gguf

    cfg = model.config
    names = gguf.TensorNameMap(gguf.MODEL_ARCH.LLAMA, cfg.num_hidden_layers)
    for hf_name, t in model.state_dict().items():
        w = t.detach().float().numpy()
        if hf_name.endswith("q_proj.weight"):
            w = _permute(w, cfg.num_attention_heads, cfg.num_attention_heads)
        elif hf_name.endswith("k_proj.weight"):
            w = _permute(w, cfg.num_attention_heads, cfg.num_key_value_heads)
        name = names.get_name(hf_name, try_suffixes=(".weight", ".bias"))
        if name is None:
            raise ValueError(f"no GGUF name for {hf_name}")
        yield name, w


def write_llama_gguf(hf_dir: Path, out: Path, qtype_name: str = "F32", drop: tuple[str, ...] = (),
                     pre: str = "default") -> Path:
    """The tiny Llama as a GGUF file; ``drop``: tensor names left out (a damaged or incomplete file); ``pre``:
    the pre-tokenizer it names (llama.cpp refuses a name it does not know)."""
    import gguf
    from transformers import AutoTokenizer, LlamaForCausalLM

    qtype = gguf.GGMLQuantizationType[qtype_name]
    model = LlamaForCausalLM.from_pretrained(hf_dir)
    tok = AutoTokenizer.from_pretrained(hf_dir)
    cfg = model.config
    w = gguf.GGUFWriter(str(out), "llama")
    w.add_name("tiny-llama")
    w.add_context_length(cfg.max_position_embeddings)
    w.add_embedding_length(cfg.hidden_size)
    w.add_block_count(cfg.num_hidden_layers)
    w.add_feed_forward_length(cfg.intermediate_size)
    w.add_head_count(cfg.num_attention_heads)
    w.add_head_count_kv(cfg.num_key_value_heads)
    w.add_rope_dimension_count(cfg.hidden_size // cfg.num_attention_heads)
    w.add_rope_freq_base(float(cfg.rope_parameters["rope_theta"]))
    w.add_layer_norm_rms_eps(cfg.rms_norm_eps)
    w.add_vocab_size(cfg.vocab_size)
    w.add_file_type(gguf.LlamaFileType.ALL_F32 if qtype_name == "F32" else gguf.LlamaFileType[f"MOSTLY_{qtype_name}"])
    # the tokenizer, as llama.cpp stores a byte-level BPE vocabulary
    backend = json.loads(tok.backend_tokenizer.to_str())
    vocab = backend["model"]["vocab"]
    tokens = sorted(vocab, key=vocab.get)
    assert [vocab[t] for t in tokens] == list(range(len(tokens)))
    special = set(tok.all_special_tokens)
    w.add_tokenizer_model("gpt2")
    w.add_tokenizer_pre(pre)
    w.add_token_list(tokens)
    w.add_token_types([gguf.TokenType.CONTROL if t in special else gguf.TokenType.NORMAL for t in tokens])
    w.add_token_merges([m if isinstance(m, str) else " ".join(m) for m in backend["model"]["merges"]])
    w.add_bos_token_id(tok.bos_token_id)
    w.add_eos_token_id(tok.eos_token_id)
    w.add_unk_token_id(tok.unk_token_id)
    w.add_add_bos_token(True)
    w.add_chat_template(tok.chat_template)
    for name, array in _tensors(model):
        if name in drop:
            continue
        data, raw = _stored(name, array, qtype)
        if raw is None:
            w.add_tensor(name, data)
        else:
            w.add_tensor(name, data, raw_shape=data.shape, raw_dtype=raw)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    return Path(out)


def dequantised_copy(hf_dir: Path, out: Path, qtype_name: str) -> Path:
    """The Hugging Face model of ``hf_dir`` with every matrix replaced by what ``qtype_name`` stores of it."""
    import gguf
    import torch
    from transformers import LlamaForCausalLM

    qtype = gguf.GGMLQuantizationType[qtype_name]
    model = LlamaForCausalLM.from_pretrained(hf_dir)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.ndim > 1 and qtype != gguf.GGMLQuantizationType.F32:
                w = p.detach().float().numpy()
                p.copy_(torch.from_numpy(gguf.quants.dequantize(gguf.quants.quantize(w, qtype), qtype)))
    shutil.copytree(hf_dir, out)
    model.save_pretrained(out)
    return Path(out)
