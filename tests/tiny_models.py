"""Tiny randomly initialised BERT / RoBERTa / GPT-2 / Llama / Qwen2 / Gemma-3 / Mistral models built offline.

The tokenizers are built with the ``tokenizers`` library from vocabularies written
here (the WordPiece trainer is not deterministic), wrapped in a fast tokenizer,
saved with ``save_pretrained`` and reloaded by the code under test through the
real ``from_pretrained`` path. The models are random: scores are meaningless but
fully deterministic, which is what engine-vs-reference tests need.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

import torch
from tokenizers import AddedToken, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors
from tokenizers.pre_tokenizers import ByteLevel

WORDS = (
    "the is of to a and in definition defined as means that with for by or on it one "
    "signal hand hands nod wink bow singing song dog cat animal act person make move "
    "water light small large bkatuhla"
).split()


def _bert_tokenizer():
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    chars = list(string.ascii_lowercase + string.digits + string.punctuation)
    vocab_list = specials + chars + ["##" + c for c in string.ascii_lowercase + string.digits] + WORDS
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys(vocab_list))}
    tok = Tokenizer(models.WordPiece(vocab=vocab, unk_token="[UNK]", max_input_chars_per_word=100))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True, clean_text=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", vocab["[CLS]"]), ("[SEP]", vocab["[SEP]"])],
    )
    tok.decoder = decoders.WordPiece()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]", mask_token="[MASK]",
        do_lower_case=True,
    ), len(vocab)


def _byte_level_vocab(specials: list[str]):
    """Byte-level BPE vocabulary: specials, the 256 byte symbols, and merges spelling WORDS."""
    alphabet = ByteLevel.alphabet()
    vocab_list = list(specials) + sorted(alphabet)
    merges: list[tuple[str, str]] = []
    for word in WORDS + [w.capitalize() for w in WORDS[:10]]:
        for form in (word, "Ġ" + word):
            symbols = list(form)
            current = symbols[0]
            for nxt in symbols[1:]:
                pair = (current, nxt)
                current = current + nxt
                if pair not in merges:
                    merges.append(pair)
                vocab_list.append(current)
    vocab = {tok: i for i, tok in enumerate(dict.fromkeys(vocab_list))}
    merges = [m for m in merges if m[0] in vocab and m[1] in vocab and m[0] + m[1] in vocab]
    return vocab, merges


def _roberta_tokenizer():
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    vocab, merges = _byte_level_vocab(specials)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.RobertaProcessing(("</s>", vocab["</s>"]), ("<s>", vocab["<s>"]))
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        bos_token="<s>", eos_token="</s>", unk_token="<unk>", pad_token="<pad>", mask_token="<mask>",
        cls_token="<s>", sep_token="</s>",
    ), len(vocab)


def _gpt2_tokenizer():
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>"]
    vocab, merges = _byte_level_vocab(specials)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>",
    ), len(vocab)


def build_tiny_bert(out: Path, positions: int = 256) -> Path:
    from transformers import BertConfig, BertForMaskedLM

    tokenizer, size = _bert_tokenizer()
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=positions, pad_token_id=tokenizer.pad_token_id,
    )
    BertForMaskedLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


def build_tiny_roberta(out: Path) -> Path:
    from transformers import RobertaConfig, RobertaForMaskedLM

    tokenizer, size = _roberta_tokenizer()
    torch.manual_seed(1)
    config = RobertaConfig(
        vocab_size=size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=258, pad_token_id=tokenizer.pad_token_id,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, type_vocab_size=1,
    )
    RobertaForMaskedLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


def build_tiny_gpt2(out: Path, positions: int = 256) -> Path:
    from transformers import GPT2Config, GPT2LMHeadModel

    tokenizer, size = _gpt2_tokenizer()
    torch.manual_seed(2)
    config = GPT2Config(
        vocab_size=size, n_embd=32, n_layer=2, n_head=2, n_positions=positions,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
    )
    GPT2LMHeadModel(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


# ---------------------------------------------------------------- decoder LLMs of today's shape

#: A small chat template in the Llama style: BOS written by the template, role headers.
TINY_LLAMA_CHAT_TEMPLATE = (
    "{{ bos_token }}{% for m in messages %}[{{ m['role'] }}] {{ m['content'] }}\n{% endfor %}"
    "{% if add_generation_prompt %}[assistant] {% endif %}"
)
#: ChatML as Qwen2 writes it (no BOS token at all).
TINY_QWEN2_CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def _llama_tokenizer():
    """Byte-level BPE that prepends BOS (as Llama 3 does), with no pad token."""
    from transformers import PreTrainedTokenizerFast

    vocab, merges = _byte_level_vocab(["<s>", "</s>", "<unk>"])
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.TemplateProcessing(
        single="<s> $A", pair="<s> $A <s> $B", special_tokens=[("<s>", vocab["<s>"])],
    )
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", unk_token="<unk>", add_bos_token=True,
    )
    fast.chat_template = TINY_LLAMA_CHAT_TEMPLATE
    return fast, len(vocab)


def _qwen2_tokenizer():
    """Byte-level BPE with no BOS, no pad token, left padding, ChatML specials."""
    from transformers import PreTrainedTokenizerFast

    specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
    vocab, merges = _byte_level_vocab(specials)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=merges))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(s, special=True) for s in specials])
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok, eos_token="<|im_end|>", unk_token=None, padding_side="left",
        additional_special_tokens=specials[1:],
    )
    fast.chat_template = TINY_QWEN2_CHAT_TEMPLATE
    return fast, len(vocab)


def build_tiny_llama(out: Path, positions: int = 512) -> Path:
    from transformers import LlamaConfig, LlamaForCausalLM

    tokenizer, size = _llama_tokenizer()
    torch.manual_seed(3)
    config = LlamaConfig(
        vocab_size=size, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, max_position_embeddings=positions, bos_token_id=tokenizer.bos_token_id,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=None, tie_word_embeddings=False,
    )
    LlamaForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


#: Qwen2-style: the embedding table is much larger than the tokenizer (padded vocabulary).
TINY_QWEN2_VOCAB = 8192


def build_tiny_qwen2(out: Path) -> Path:
    from transformers import Qwen2Config, Qwen2ForCausalLM

    tokenizer, size = _qwen2_tokenizer()
    assert size < TINY_QWEN2_VOCAB
    torch.manual_seed(4)
    config = Qwen2Config(
        vocab_size=TINY_QWEN2_VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512, bos_token_id=None,
        eos_token_id=tokenizer.eos_token_id, pad_token_id=None, tie_word_embeddings=True,
    )
    Qwen2ForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    # Qwen2Tokenizer fills in a default pad token unless the config says none
    config_file = Path(out) / "tokenizer_config.json"
    saved = json.loads(config_file.read_text(encoding="utf-8"))
    saved.update(pad_token=None, bos_token=None)
    config_file.write_text(json.dumps(saved, indent=2), encoding="utf-8")
    return Path(out)


# ---------------------------------------------------------------- sliding-window attention

#: the tiny sliding-window models' window: contexts of a few words already pass it
TINY_SLIDING_WINDOW = 16


def build_tiny_gemma3(out: Path, sliding_window: int = TINY_SLIDING_WINDOW) -> Path:
    """Gemma-3 text architecture: five sliding-window layers to one full layer, local and global RoPE."""
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    tokenizer, size = _llama_tokenizer()
    torch.manual_seed(5)
    config = Gemma3TextConfig(
        vocab_size=size, hidden_size=32, intermediate_size=64, num_hidden_layers=6, num_attention_heads=4,
        num_key_value_heads=2, head_dim=8, query_pre_attn_scalar=8, max_position_embeddings=512,
        sliding_window=sliding_window, bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=None,
    )
    assert config.layer_types.count("sliding_attention") == 5 and config.layer_types[5] == "full_attention"
    Gemma3ForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


def build_tiny_mistral(out: Path, sliding_window: int = TINY_SLIDING_WINDOW) -> Path:
    """Mistral architecture with ``sliding_window`` on every layer (one mask for all layers)."""
    from transformers import MistralConfig, MistralForCausalLM

    tokenizer, size = _llama_tokenizer()
    torch.manual_seed(6)
    config = MistralConfig(
        vocab_size=size, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        num_key_value_heads=2, head_dim=8, max_position_embeddings=512, sliding_window=sliding_window,
        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id, pad_token_id=None,
        tie_word_embeddings=False,
    )
    MistralForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return Path(out)


#: per-family config fields a tiny model needs beyond the common ones (``tiny_family_model``)
_FAMILY_FIELDS = {
    "gpt2": dict(n_embd=32, n_layer=4, n_head=4, n_positions=256),
    "gptj": dict(n_embd=32, n_layer=4, n_head=4, rotary_dim=4, n_positions=256),
    "codegen": dict(n_embd=32, n_layer=4, n_head=4, rotary_dim=4, n_positions=256, n_ctx=256),
    "gpt_bigcode": dict(n_embd=32, n_layer=4, n_head=4, n_positions=256),
    "opt": dict(ffn_dim=64, word_embed_proj_dim=32),
    "gpt_neox": dict(rotary_pct=0.5),
    "phi": dict(partial_rotary_factor=0.5),
    "granite": dict(logits_scaling=4.0, embedding_multiplier=2.0, residual_multiplier=0.5, attention_multiplier=0.2),
    "mixtral": dict(num_local_experts=4, num_experts_per_tok=2),
    "phimoe": dict(num_local_experts=4, num_experts_per_tok=2),
    "olmoe": dict(num_experts=4, num_experts_per_tok=2),
    "qwen3_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16),
    "qwen2_moe": dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
                      shared_expert_intermediate_size=16),
    "gpt_oss": dict(num_local_experts=4, num_experts_per_tok=2),
    "gemma2": dict(query_pre_attn_scalar=8, final_logit_softcapping=5.0),
    "gemma3_text": dict(query_pre_attn_scalar=8, final_logit_softcapping=5.0),
    "vaultgemma": dict(query_pre_attn_scalar=8),
}
#: every fourth layer full, the others sliding (as Gemma-3, Cohere2, OLMo-3 alternate)
_MIXED_LAYERS = ["sliding_attention", "sliding_attention", "sliding_attention", "full_attention"]


def tiny_family_model(model_type: str, mask: str, sliding_window: int = TINY_SLIDING_WINDOW,
                      attn: str = "sdpa", vocab_size: int = 97):
    """A random 4-layer decoder of ``model_type``, built in memory (no tokenizer; token ids 0-96).

    ``mask`` says how the family masks its layers (``attention_layout.PACKED_FAMILIES``):
    ``window`` gets ``sliding_window`` on every layer, ``by_type`` sliding layers with a full
    one every fourth (``layer_types``), ``causal`` none. Families that need eager attention
    (soft-capped or sink attention) fall back to it.
    """
    from transformers import AutoConfig, AutoModelForCausalLM

    fields = dict(
        vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=4, num_attention_heads=4,
        num_key_value_heads=2, head_dim=8, max_position_embeddings=256, bos_token_id=0, eos_token_id=1,
        pad_token_id=None, tie_word_embeddings=False,
    )
    fields.update(_FAMILY_FIELDS.get(model_type, {}))
    if mask in ("window", "by_type"):
        fields.update(sliding_window=sliding_window, use_sliding_window=True, max_window_layers=0)
    if mask == "by_type":
        fields.update(layer_types=_MIXED_LAYERS)
    config = AutoConfig.for_model(model_type, **fields)
    torch.manual_seed(7)
    try:
        model = AutoModelForCausalLM.from_config(config, attn_implementation=attn)
    except ValueError:  # e.g. Gemma-2's soft-capped attention has no sdpa kernel
        model = AutoModelForCausalLM.from_config(config, attn_implementation="eager")
    return model.eval()
