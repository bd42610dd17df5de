"""Requests: what a benchmark's method asks of a model, as typed values (after lm-eval's ``Instance``).

A method turns its items into requests and the engine (``asking.engine``) resolves them on whatever
backend the run has, so no benchmark keeps its own capability table, fit check and de-duplication. What
a backend can do *is* the set of request types it serves: it serves one by having its ``serve`` method,
``serve(requests, progress) -> answers`` in order (structural, like MTEB's model protocols), and fits
them to its input with ``fit_<serve>(requests) -> [Fit]`` where it has a limit. Requests are frozen
dataclasses (identical ones are asked once) holding texts: tokenisation, fitting, packing and batching
are the backend's business, so a request means the same on every backend.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Union


class Request:
    """What every request type declares: the backend method that serves it, and what that is, in words."""

    serve: ClassVar[str]
    what: ClassVar[str]


@dataclass(frozen=True)
class Message:
    """One turn of a chat: ``role`` is ``system``, ``user`` or ``assistant``."""

    role: str
    content: str


#: a prompt: plain text, or chat messages that the backend puts in its chat template (a chat API sends them)
Prompt = Union[str, tuple[Message, ...]]


@dataclass(frozen=True)
class Continuation(Request):
    """Log-probability of each token of ``continuation`` after ``context`` (lm-eval's ``loglikelihood``).

    Answer: a float64 array, one value per scored token. ``context``: text, or chat messages in the
    backend's chat template (``Prompt``), followed by ``answer_prefix``. ``given``: text after the context
    that is fed but not scored (CoDA21's row `` 1:``), tokenised with the continuation, so requests that
    differ only in it share the context's forward pass. ``max_tokens``: only the first tokens are scored,
    the context fitted with the whole continuation (the answer is a prefix of the uncut one's).
    ``window``: each token is predicted from at most the last ``window`` tokens (the WDLMPro authors'
    batched loop). A context that does not fit loses its start (``Fit.cut``); a continuation that alone
    does not fit is ``Fit.too_long``.
    """

    context: Prompt
    continuation: str
    max_tokens: int | None = None
    window: int | None = None
    answer_prefix: str = ""
    given: str = ""

    serve: ClassVar[str] = "continuations"
    what: ClassVar[str] = "log-probabilities of continuations (a causal LM)"


@dataclass(frozen=True)
class Slot(Request):
    """Log-probability of each token of ``word`` in masked slots between ``left`` and ``right`` (a masked LM).

    The word is tokenised as it stands in the filled-in sentence; the answer has one value per word token.
    ``max_tokens``: only the word's first tokens, each in a mask (the rest of the word left out of the input:
    CoDA21's asked answers, read at one mask as the authors did)."""

    left: str
    word: str
    right: str
    max_tokens: int | None = None

    serve: ClassVar[str] = "slots"
    what: ClassVar[str] = "log-probabilities of masked slots (a masked LM)"


@dataclass(frozen=True)
class PseudoLogLikelihood(Request):
    """A masked LM's pseudo-log-likelihood of each token of ``continuation`` after ``context`` (``variant``:
    one token masked at a time, ``token``, or word-level left-to-right, ``word-l2r``). Answer: per token.
    ``max_tokens``: the continuation cut to its first tokens. ``encoding``: ``text`` (encoded together) or
    ``released-mlm-input`` (CoDA21's released input, ``scorers/pll.py``)."""

    context: str
    continuation: str
    max_tokens: int | None = None
    variant: str = "token"
    encoding: str = "text"

    serve: ClassVar[str] = "pseudo_loglikelihoods"
    what: ClassVar[str] = "pseudo-log-likelihoods (a masked LM)"


@dataclass(frozen=True)
class Embed(Request):
    """A text's unit vector: a sentence encoder's, or the mean of static word vectors (a text without any
    token with a vector is the zero vector). Answer: a float array."""

    text: str

    serve: ClassVar[str] = "embeddings"
    what: ClassVar[str] = "text embeddings"


@dataclass(frozen=True)
class TokenVector(Request):
    """The contextual vector of ``words[index]`` in the sentence ``" ".join(words)`` (the mean of its subword
    vectors) at ``layer`` (None: the backend's own). ``words_alone``: every word tokenised on its own (the
    sense-ranking authors' recipe; None: the backend's setting). ``sentence``: the (document, sentence) ids,
    which only the random baseline's seed depends on. ``span``: the target as characters ``[start, end)`` of a
    text as its source gives it (``words`` then holds that one text, ``index`` 0): a dataset's own offsets, with
    no word splitting of lexprobe's in between (``TokenVector.of_span``). Answer: a float32 array, or None where
    the target's subwords could not be found (counted by the caller)."""

    words: tuple[str, ...]
    index: int
    layer: int | None = None
    words_alone: bool | None = None
    sentence: tuple[str, str] = ("", "")
    span: tuple[int, int] | None = None

    @classmethod
    def of_span(cls, text: str, start: int, end: int, layer: int | None = None) -> "TokenVector":
        """The vector of characters ``text[start:end]`` in ``text`` (checked: a non-empty span inside the text)."""
        if not 0 <= start < end <= len(text):
            raise ValueError(f"span [{start}, {end}) is not a non-empty part of a {len(text)}-character text")
        return cls((text,), 0, layer, False, span=(start, end))

    @property
    def target(self) -> int | tuple[int, int]:
        """What is embedded: a word's index, or a character span of the text."""
        return self.index if self.span is None else self.span

    serve: ClassVar[str] = "token_vectors"
    what: ClassVar[str] = "contextual token embeddings"


@dataclass(frozen=True)
class Generate(Request):
    """A greedy answer to ``prompt`` of at most ``max_tokens`` tokens, cut before the first of ``stop``.

    ``answer_prefix``: text the answer is known to start with ("Answer:"): after the prompt's text or chat
    template, or pre-filling the assistant's turn of a chat endpoint. Answer: the text after it. A prompt
    without room for ``max_tokens`` is ``Fit.too_long`` (cut, it would lose its question)."""

    prompt: Prompt
    max_tokens: int
    stop: tuple[str, ...] = ()
    answer_prefix: str = ""

    serve: ClassVar[str] = "generations"
    what: ClassVar[str] = "generation"


@dataclass(frozen=True)
class RandomScores(Request):
    """``n`` seeded random scores for ``key``: the random baseline (the same key gives the same scores)."""

    key: str
    n: int

    serve: ClassVar[str] = "random_scores"
    what: ClassVar[str] = "random scores"


@dataclass(frozen=True)
class VectorCoverage(Request):
    """How many of ``text``'s tokens have a static word vector: served by static vectors only (a sentence
    encoder embeds every text), so a method can drop what the vectors cannot embed (the WDLMPro authors' recipe)
    and count their coverage. Answer: (tokens, tokens with a vector)."""

    text: str

    serve: ClassVar[str] = "vector_coverage"
    what: ClassVar[str] = "static word vectors' coverage of a text"


REQUEST_TYPES: tuple[type[Request], ...] = (Continuation, Slot, PseudoLogLikelihood, Embed, TokenVector, Generate,
                                   RandomScores, VectorCoverage)


@dataclass(frozen=True)
class Fit:
    """How a request fits a backend's input: ``cut`` (text far from what is scored was dropped, counted), or
    ``too_long`` (why it cannot be scored without cutting what is scored: its unit is skipped, counted);
    ``context_tokens``: the fitted context's tokens; ``tokens``: those of what is scored (a continuation, a
    ``Slot``'s word, an ``Embed``'s text without special tokens); None where the backend does not count."""

    cut: bool = False
    too_long: str | None = None
    context_tokens: int | None = None
    tokens: int | None = None


FITS = Fit()
