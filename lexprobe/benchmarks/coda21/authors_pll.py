"""The masked-LM input of CoDA21's released code, token for token (``--recipe authors``).

lksenel/CoDA21 @f5393e6 builds every (context, definition) input as::

    definitions = [" " + C["definition"] for C in candidates]             # utils.py:43
    definition = " " + convert_tokens_to_string(tokenize(definition)[:48])  # aligner.py:99
    def_len = len(tokenize(definition))                                   # aligner.py:100
    def_start_ind = len(tokenize(inp)) + 1                                # aligner.py:95,103
    inputs.append(inp + definition)                                       # aligner.py:106

``convert_tokens_to_string`` keeps the leading space of the first token, so the text
has two spaces before the definition. A WordPiece tokenizer ignores that; byte-level
BPE (RoBERTa) makes the first space a token of its own, a lone ``Ġ``, which is inside
``def_len`` tokens and so masked and scored like a definition token in every pair —
in every published RoBERTa row. ``paper`` scores the definition's own tokens only.
"""

from __future__ import annotations

from lexprobe.scorers.base import TooLong


def authors_pll_encoding(tokenizer, prompt: str, continuation: str, max_tokens: int | None = None,
                         max_length: int | None = None) -> tuple[list[int], list[int], list[int | None]]:
    """(ids, scored positions, word ids) as ``Aligner._create_batch_for_mlm`` builds them.

    ``continuation`` is the definition with its leading space (``utils.get_definitions``);
    the signature is ``lexprobe.scorers.pll.encode_pair``'s, so ``pll_scores(...,
    encoder=authors_pll_encoding)`` scores it. An input longer than the model takes
    loses tokens from the start of the prompt (the authors' inputs never were).
    """
    tokens = tokenizer.tokenize(continuation)
    shown = " " + tokenizer.convert_tokens_to_string(tokens[:max_tokens] if max_tokens else tokens)
    def_len = len(tokenizer.tokenize(shown))
    start = len(tokenizer.tokenize(prompt)) + 1  # "assumes one special token at the beginning"
    enc = tokenizer(prompt + shown, add_special_tokens=True)
    ids = list(enc["input_ids"])
    words = list(enc.word_ids()) if hasattr(enc, "word_ids") else [None] * len(ids)
    positions = list(range(start, start + def_len))
    limit = min(max_length or getattr(tokenizer, "model_max_length", None) or 512, 100_000)
    excess = len(ids) - limit
    if excess > 0:
        if excess > start - 1:
            raise TooLong(f"a definition of {def_len} tokens does not fit the model's {limit} input positions")
        del ids[1:1 + excess]
        del words[1:1 + excess]
        positions = [p - excess for p in positions]
    return ids, positions, words
