"""What an OpenAI-compatible server may answer, declared (pydantic v2, strict) and checked against the request.

Every answer the endpoint backend uses is parsed into a declared shape (strict: no string read as a number,
no boolean as an integer) and compared with what was asked; anything else is a ``BadAnswer`` naming what is
wrong, and nothing from it is used. Completions: exactly one choice per prompt, by ``index``; echoed
log-probabilities exactly as long as the prompt, each finite or -inf and at most 0 (only the first may be
null); the echoed prompt always compared with the prompt sent: its token ids where the server echoes them,
else its tokens' text against the local tokenizer's text of each id sent (a server that ignores
``return_tokens_as_token_ids`` once had its swapped ``index`` scored unchecked); an echo of neither is
refused. Chat: one choice of index 0 whose content is a string (``{"choices": []}`` once became the model's
own "unparseable" answer).
"""

from __future__ import annotations

import math
import re
from typing import AbstractSet, Annotated, Any, Callable, Optional, Sequence, TypeVar

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from lexprobe.backends.client import BadAnswer
from lexprobe.errors import ModelError

S = TypeVar("S", bound=BaseModel)

Index = Annotated[int, Field(ge=0, strict=True)]
TokenId = Annotated[int, Field(ge=0, strict=True)]


def _logprob(value: Any) -> Optional[float]:
    """A log-probability: a number, finite or -inf, at most 0 (or null, placed by the caller's check)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"a log-probability is a number, not {type(value).__name__} {_short(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError(f"a log-probability out of range ({_short(value)})") from None
    if math.isnan(number):
        raise ValueError("a log-probability is NaN")
    if number > 0:
        raise ValueError(f"a log-probability is at most 0, got {_short(value)}")
    return number


LogProb = Annotated[Optional[float], BeforeValidator(_logprob)]


class _Shape(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore", frozen=True)


class ModelCard(_Shape):
    id: Annotated[str, Field(min_length=1)]
    root: Optional[str] = None
    max_model_len: Optional[Annotated[int, Field(gt=0)]] = None
    owned_by: Optional[str] = None
    #: a server that says what precision it runs the model in (vLLM's /v1/models does not)
    dtype: Optional[str] = None


class ModelList(_Shape):
    data: list[ModelCard]


class Version(_Shape):
    version: Annotated[str, Field(min_length=1)]


class Tokenized(_Shape):
    tokens: list[TokenId]


class Usage(_Shape):
    prompt_tokens: Annotated[int, Field(ge=0)]


class UsageAnswer(_Shape):
    usage: Usage


class EchoLogprobs(_Shape):
    token_logprobs: Optional[list[LogProb]] = None
    tokens: Optional[list[str]] = None


class EchoChoice(_Shape):
    index: Index
    logprobs: Optional[EchoLogprobs] = None
    prompt_token_ids: Optional[list[TokenId]] = None


class EchoAnswer(_Shape):
    choices: list[EchoChoice]


class TextChoice(_Shape):
    index: Index
    text: str


class TextAnswer(_Shape):
    choices: list[TextChoice]


class ChatMessage(_Shape):
    content: str


class ChatChoice(_Shape):
    index: Index
    message: ChatMessage


class ChatAnswer(_Shape):
    choices: Annotated[list[ChatChoice], Field(min_length=1)]


# ---------------------------------------------------------------------- parsing
def parse(shape: type[S], answer: Any, what: str) -> S:
    """``answer`` as ``shape``, or a ``BadAnswer`` naming the first field that is wrong."""
    if not isinstance(answer, dict):
        raise BadAnswer(f"the {what} answer is {_json_kind(answer)}, not a JSON object")
    try:
        return shape.model_validate(answer)
    except ValidationError as err:
        first = err.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "the answer"
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] in ("model_type", "dict_type"):
            message = "should be a JSON object"
        elif first["type"] == "missing":
            message = "is missing"
        shown = "" if first["type"] in ("missing", "value_error") else f" (got {_short(first.get('input'))})"
        raise BadAnswer(f"the {what} answer is malformed: {where}: {message}{shown}") from None


def by_index(choices: Sequence[Any], n: int, what: str) -> list[Any]:
    """The choices in prompt order: exactly one of each index 0..n-1."""
    if len(choices) != n:
        raise BadAnswer(f"the {what} answer has {len(choices)} choice(s) for {n} prompt(s)"
                        + ("; a server that takes one prompt per request needs --batch-size 1" if n > 1 else ""))
    slots: list[Any] = [None] * n
    for choice in choices:
        if choice.index >= n:
            raise BadAnswer(f"the {what} answer has a choice of index {choice.index} for {n} prompt(s) (0..{n - 1})")
        if slots[choice.index] is not None:
            raise BadAnswer(f"the {what} answer has two choices of index {choice.index}")
        slots[choice.index] = choice
    return slots


# ---------------------------------------------------------------------- answers
def models(answer: Any) -> list[ModelCard]:
    cards = parse(ModelList, answer, "/v1/models").data
    seen: set[str] = set()
    for card in cards:
        if card.id in seen:
            raise BadAnswer(f"the /v1/models answer lists {card.id!r} twice")
        seen.add(card.id)
    return cards


def version(answer: Any) -> str:
    return parse(Version, answer, "/version").version


def tokenized(answer: Any) -> list[int]:
    return list(parse(Tokenized, answer, "/tokenize").tokens)


def prompt_tokens(answer: Any) -> int:
    return parse(UsageAnswer, answer, "completions").usage.prompt_tokens


_TOKEN_ID = re.compile(r"token_id:(\d+)")

#: what an echo answer without prompt log-probabilities means, and the fix (not a malformed answer)
NO_PROMPT_LOGPROBS = ("{base} gives no prompt log-probabilities (echo with logprobs); likelihood methods need them: "
                      "serve the model with vLLM or SGLang, or use --kind chat and --method choose --reading generation")


#: an echo answer that shows neither the prompt's token ids nor its tokens: it cannot be matched to the prompt
NO_ECHOED_PROMPT = ("{base} echoes neither the prompt's token ids nor its tokens (logprobs.tokens), so its answers "
                    "cannot be matched to the prompts sent and nothing is scored: serve the model with vLLM or SGLang")

#: what a token's text is compared as: without whitespace and SentencePiece's word mark (servers differ in
#: where they show a token's leading space)
_SPACE = re.compile(r"[\s\u2581]+")

#: the local tokenizer's texts of a token id, normalised (``token_text``), or None where a text cannot be
#: compared (a special token, a byte of a character split across tokens, whitespace)
Renderer = Callable[[int], Optional[AbstractSet[str]]]


def token_text(text: str) -> str:
    """A token's text as it is compared: whitespace and ``▁`` removed."""
    return _SPACE.sub("", text)


class EchoChecked(list):
    """The prompts' log-probabilities (one list per prompt) and how many prompts' echoes were compared: by
    their token ids, or by their tokens' text."""

    ids_compared: int = 0
    texts_compared: int = 0


def echo_logprobs(answer: Any, prompts: Sequence[Sequence[int]], base: str, render: Renderer) -> EchoChecked:
    """Each prompt's log-probabilities from an ``echo`` + ``logprobs`` completions answer, checked; the echoed
    prompt compared with the prompt sent (ids, else the tokens' text through ``render``)."""
    what = "completions (echo)"
    choices = by_index(parse(EchoAnswer, answer, what).choices, len(prompts), what)
    out = EchoChecked()
    for i, (ids, choice) in enumerate(zip(prompts, choices)):
        values = choice.logprobs.token_logprobs if choice.logprobs is not None else None
        if values is None:
            raise ModelError(NO_PROMPT_LOGPROBS.format(base=base))
        echoed = _echoed_ids(choice)
        tokens = choice.logprobs.tokens if choice.logprobs is not None else None
        if echoed is not None:
            if list(echoed) != list(ids):
                at = next((p for p, (a, b) in enumerate(zip(echoed, ids)) if a != b), min(len(echoed), len(ids)))
                raise BadAnswer(f"choice {i} echoes token ids that are not the prompt's ({len(echoed)} ids, the "
                                f"first difference at position {at}): the answer is not for the prompt sent")
            out.ids_compared += 1
        elif tokens is None:
            raise ModelError(NO_ECHOED_PROMPT.format(base=base))
        elif len(tokens) != len(ids):
            raise BadAnswer(f"choice {i} echoes {len(tokens)} tokens for a prompt of {len(ids)}")
        else:
            out.texts_compared += _compare_texts(i, tokens, ids, render)
        if len(values) != len(ids):
            raise BadAnswer(f"choice {i} has {len(values)} log-probabilities for a prompt of {len(ids)} tokens "
                            "(echo gives one per prompt token): the answer is not for the prompt sent")
        missing = next((p for p, v in enumerate(values) if v is None and p > 0), None)
        if missing is not None:
            raise BadAnswer(f"choice {i}: the log-probability of prompt token {missing} is null (only the first "
                            "token, which nothing precedes, may have none)")
        out.append(list(values))
    return out


def _compare_texts(i: int, tokens: Sequence[str], ids: Sequence[int], render: Renderer) -> bool:
    """Each echoed token's text is one of the local tokenizer's texts of the id sent at its place (where both
    can be compared), or a ``BadAnswer``; whether any place was compared."""
    compared = False
    for place, (echoed, token_id) in enumerate(zip(tokens, ids)):
        mine = render(token_id)
        theirs = token_text(echoed)
        if mine is None or not theirs or "\ufffd" in theirs or echoed.startswith("bytes:"):
            continue  # a special token, a character split across tokens, whitespace: nothing to compare
        if theirs not in mine:
            raise BadAnswer(f"choice {i} echoes tokens that are not the prompt's (at position {place} "
                            f"{_short(echoed)} where the prompt has {_short(sorted(mine)[0])}): the answer is not "
                            "for the prompt sent")
        compared = True
    return compared


def _echoed_ids(choice: EchoChoice) -> list[int] | None:
    """The token ids a choice echoes: ``prompt_token_ids``, or ``tokens`` when every one is ``token_id:N``."""
    if choice.prompt_token_ids is not None:
        return list(choice.prompt_token_ids)
    tokens = choice.logprobs.tokens if choice.logprobs is not None else None
    if tokens:
        matched = [_TOKEN_ID.fullmatch(t) for t in tokens]
        if all(matched):
            return [int(m.group(1)) for m in matched if m]
    return None


def texts(answer: Any, n: int) -> list[str]:
    """The generated text of each of ``n`` prompts, in prompt order."""
    what = "completions"
    return [c.text for c in by_index(parse(TextAnswer, answer, what).choices, n, what)]


def chat_text(answer: Any) -> str:
    """The assistant's message of a chat answer (its choice of index 0)."""
    what = "chat completions"
    choices = parse(ChatAnswer, answer, what).choices
    first = [c for c in choices if c.index == 0]
    if len(first) != 1:
        raise BadAnswer(f"the {what} answer has {len(first)} choices of index 0 (one expected)")
    return first[0].message.content


# ---------------------------------------------------------------------- helpers
def _json_kind(value: Any) -> str:
    kinds = {type(None): "null", list: "a list", str: "a string", bool: "a boolean", int: "a number", float: "a number"}
    return kinds.get(type(value), type(value).__name__)


def _short(value: Any) -> str:
    try:
        text = repr(value)
    except ValueError:  # an integer of more digits than Python prints
        return "a number of thousands of digits"
    return text if len(text) <= 40 else text[:37] + "..."
