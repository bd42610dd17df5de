"""The one instance model shared by every sense-annotated corpus reader.

A ``SenseInstance`` is one sense-tagged single-word target in its sentence. All
readers (SemCor, OntoNotes, PDEP, STREUSLE) produce it, so the sense-ranking
benchmark and the fine-tuning code never see corpus formats.

The sentence text is the tokens joined by single spaces; ``char_span()`` gives the
target's character offsets in that text, which is how embedding code finds the
target's subwords whatever the model's tokenizer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


class TargetInSentence:
    """What any target in a tokenised sentence offers (``tokens`` and ``index`` are its fields): the word, the
    sentence text (tokens joined by single spaces), the target's character span in it, the marked sentence."""

    tokens: tuple[str, ...]
    index: int

    @property
    def word(self) -> str:
        return self.tokens[self.index]

    @property
    def text(self) -> str:
        return " ".join(self.tokens)

    def char_span(self) -> tuple[int, int]:
        """Start and end character offsets of the target in ``text``."""
        return token_char_spans(self.tokens)[self.index]

    def marked(self, left: str = ">>", right: str = "<<") -> str:
        """The sentence with the target marked, for reports."""
        toks = list(self.tokens)
        toks[self.index] = f"{left}{toks[self.index]}{right}"
        return " ".join(toks)


@dataclass(frozen=True)
class SenseInstance(TargetInSentence):
    doc_id: str
    tokens: tuple[str, ...]
    index: int  # the target's position in ``tokens``
    lemma: str
    pos: str  # coarse: n, v, a, r, p (corpus-specific tags are mapped by the readers)
    label: str  # the sense label, unique across lemmas (e.g. "bank%1:14:00::", "on_20")
    split: str  # train / dev / test
    sent_id: str = ""
    query: bool = True  # False: a database candidate only (OntoNotes "none of the above" senses)

    @property
    def sentence_key(self) -> tuple:
        """Identifies the sentence, so that each sentence is encoded once."""
        return (self.doc_id, self.sent_id, self.tokens)


def token_char_spans(tokens: Sequence[str]) -> list[tuple[int, int]]:
    """Character (start, end) of each token in ``" ".join(tokens)``."""
    spans, pos = [], 0
    for tok in tokens:
        spans.append((pos, pos + len(tok)))
        pos += len(tok) + 1
    return spans


def validate(instance: SenseInstance) -> None:
    """Raise ValueError for an instance no reader should produce."""
    if not 0 <= instance.index < len(instance.tokens):
        raise ValueError(f"target index {instance.index} outside a {len(instance.tokens)}-token sentence")
    if not instance.tokens[instance.index].strip():
        raise ValueError("empty target token")
