"""Base-sized random models (GPT-2 small / BERT-base shapes) with real-size tokenizers, built offline.

Speed comparisons need the real compute shape: 12 layers, 768 wide, a 50 257 (GPT-2)
or 30 522 (BERT) token vocabulary, and a tokenizer that splits English into as many
pieces as the real one. The weights are random (no hub access); the tokenizers are
trained here on WordNet's glosses and lemmas (byte-level BPE for GPT-2, WordPiece
for BERT) up to the real vocabulary size. Built once into lexprobe's cache.
"""

from __future__ import annotations

from pathlib import Path

import torch

from lexprobe.cache import cache_dir

GPT2_VOCAB = 50257
BERT_VOCAB = 30522
VERSION = "v1"


def _corpus() -> list[str]:
    from lexprobe.data.wordnet import load_wordnet

    wn = load_wordnet()
    texts = []
    for s in wn.all_synsets():
        texts.append(s.definition())
        texts.extend(s.examples())
        texts.append(" ".join(name.replace("_", " ") for name in s.lemma_names()))
    return texts


def _gpt2_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=GPT2_VOCAB, special_tokens=["<|endoftext|>"], show_progress=False,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    tok.train_from_iterator(texts, trainer)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<|endoftext|>", eos_token="<|endoftext|>", unk_token="<|endoftext|>",
    )


def _bert_tokenizer(texts):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True, strip_accents=True, clean_text=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(vocab_size=BERT_VOCAB, special_tokens=specials, show_progress=False)
    tok.train_from_iterator(texts, trainer)
    cls, sep = tok.token_to_id("[CLS]"), tok.token_to_id("[SEP]")
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", cls), ("[SEP]", sep)],
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, unk_token="[UNK]", pad_token="[PAD]", cls_token="[CLS]", sep_token="[SEP]",
        mask_token="[MASK]", do_lower_case=True, model_max_length=512,
    )


def base_model_dirs(root: Path | None = None) -> dict[str, Path]:
    """``{"gpt2": dir, "bert": dir}``, building what is missing."""
    root = Path(root or cache_dir() / "bench_models" / VERSION)
    gpt2, bert = root / "gpt2-base-random", root / "bert-base-random"
    texts = None
    if not (gpt2 / "config.json").exists():
        from transformers import GPT2Config, GPT2LMHeadModel

        texts = texts or _corpus()
        tokenizer = _gpt2_tokenizer(texts)
        torch.manual_seed(0)
        config = GPT2Config(vocab_size=GPT2_VOCAB, bos_token_id=tokenizer.bos_token_id,
                            eos_token_id=tokenizer.eos_token_id)
        tokenizer.save_pretrained(gpt2)
        GPT2LMHeadModel(config).save_pretrained(gpt2)
    if not (bert / "config.json").exists():
        from transformers import BertConfig, BertForMaskedLM

        texts = texts or _corpus()
        tokenizer = _bert_tokenizer(texts)
        torch.manual_seed(0)
        config = BertConfig(vocab_size=BERT_VOCAB, pad_token_id=tokenizer.pad_token_id)
        tokenizer.save_pretrained(bert)
        BertForMaskedLM(config).save_pretrained(bert)
    return {"gpt2": gpt2, "bert": bert}


if __name__ == "__main__":
    for kind, path in base_model_dirs().items():
        print(kind, path)
