"""Prompt templates of the ask-to-choose protocol, and how a prompt is put together.

A template is a handful of format strings. The question (``w2d``, ``d2w`` or
``coda``) becomes the user's message; the prompt given to the model is that message
followed by a new line and ``answer`` (plain), or the tokenizer's chat template
applied to [system?, user] with the generation prompt, followed by ``answer``
(``--chat``: the answer prefix is pre-filled in the assistant's turn). Option labels
are read after the prompt as ``" " + label``; CoDA21's label likelihood reads the
definition letter of context ``c`` after the prompt plus ``coda_row`` (`` c:``).

Templates ship by name (``SHIPPED``); ``--template FILE`` reads a JSON object with
the same fields, missing fields taken from ``default``. The resolved template is
recorded in every result.
"""

from __future__ import annotations

import string
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Sequence

from lexprobe.data.files import read_json
from lexprobe.errors import DataError, ModelError

LABEL_STYLES = ("numbers", "letters")
BLANK = "___"


@dataclass(frozen=True)
class Template:
    name: str
    w2d: str
    d2w: str
    coda: str
    option: str = "{label}. {text}"
    answer: str = "Answer:"
    coda_row: str = " {context}:"
    labels: str = "numbers"  # W2D/D2W option labels; CoDA21: contexts numbered, definitions lettered
    system: str | None = None

    def record(self) -> dict:
        return asdict(self)


DEFAULT = Template(
    name="default",
    w2d=('Which definition fits the word "{word}"?\n{options}\n'
         "Reply with the number of the definition only."),
    d2w=('Which word has the definition "{definition}"?\n{options}\n'
         "Reply with the number of the word only."),
    coda=("In each numbered sentence a word was replaced by " + BLANK + ". The hidden words are different.\n"
          "Sentences:\n{contexts}\nDefinitions:\n{definitions}\n"
          "Match each sentence to the definition of its hidden word; use each definition once. "
          "Reply on one line in the form 1: A, 2: B, ..."),
)

SHIPPED: dict[str, Template] = {
    "default": DEFAULT,
    # letters avoid the "1" / "10" label-prefix clash of numbered lists (MMLU style)
    "letters": replace(
        DEFAULT, name="letters", labels="letters",
        w2d=('Question: which definition fits the word "{word}"?\n{options}\n'
             "Reply with the letter of the definition only."),
        d2w=('Question: which word has the definition "{definition}"?\n{options}\n'
             "Reply with the letter of the word only."),
    ),
    "dictionary": replace(
        DEFAULT, name="dictionary",
        system="You are a careful lexicographer. Answer exactly in the format asked for.",
        w2d=('A dictionary lists several senses. Which of these is the meaning of "{word}"?\n{options}\n'
             "Give only the number."),
        d2w=('A dictionary entry reads: "{definition}". Which headword does it define?\n{options}\n'
             "Give only the number."),
        coda=("Each sentence below has one word hidden as " + BLANK + "; every sentence hides a different word.\n"
              "{contexts}\nDictionary definitions:\n{definitions}\n"
              "Pair every sentence with the definition of its hidden word, each definition used once. "
              "Give only the pairs on one line, like 1: A, 2: B, ..."),
    ),
}

_PLACEHOLDERS = {
    "w2d": {"word", "options", "n"},
    "d2w": {"definition", "options", "n"},
    "coda": {"contexts", "definitions", "k"},
    "option": {"label", "text"},
    "answer": set(),
    "coda_row": {"context"},
}


#: placeholders a question cannot do without (a w2d question without its options asks nothing)
_REQUIRED = {
    "w2d": {"word", "options"},
    "d2w": {"definition", "options"},
    "coda": {"contexts", "definitions"},
    "option": {"label", "text"},
}


def _fields_used(text: str) -> set[str]:
    """The placeholders of ``text``; a format spec or conversion (``{word:d}``, ``{word:>99999999999}``)
    is refused here, before the model loads, rather than failing (or filling memory) when formatting."""
    used = set()
    for _, name, spec, conversion in string.Formatter().parse(text):
        if name is None:
            continue
        if spec or conversion:
            raise ValueError(f"placeholder {{{name}}} has a format spec or conversion "
                             f"({'!' + conversion if conversion else ''}{':' + spec if spec else ''}); "
                             "write it as plain {" + name + "}")
        used.add(name)
    return used


def check_template(t: Template, source: str = "") -> Template:
    where = f" in {source}" if source else ""
    if t.labels not in LABEL_STYLES:
        raise DataError(f"template labels {t.labels!r}{where} must be one of {', '.join(LABEL_STYLES)}")
    for name, allowed in _PLACEHOLDERS.items():
        text = getattr(t, name)
        if not isinstance(text, str):
            raise DataError(f"template field {name!r}{where} must be a string")
        try:
            used = _fields_used(text)
        except ValueError as err:
            raise DataError(f"template field {name!r}{where} is not a valid format string ({err}); "
                            "write literal braces as {{ and }}") from None
        unknown = used - allowed
        if unknown:
            raise DataError(f"template field {name!r}{where} uses unknown placeholder(s) "
                            f"{', '.join(sorted(unknown))}; allowed: {', '.join(sorted(allowed)) or 'none'}")
        missing = _REQUIRED.get(name, set()) - used
        if missing:
            raise DataError(f"template field {name!r}{where} lacks placeholder(s) "
                            f"{', '.join('{' + m + '}' for m in sorted(missing))}; add them")
    if t.system is not None and not isinstance(t.system, str):
        raise DataError(f"template field 'system'{where} must be a string or null")
    return t


def load_template(name_or_path: str) -> Template:
    """A shipped template by name, or a JSON file whose fields override ``default``."""
    if name_or_path in SHIPPED:
        return SHIPPED[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise DataError(f"--template {name_or_path!r} is neither a shipped template "
                        f"({', '.join(SHIPPED)}) nor a JSON file")
    obj = read_json(path, "see docs/llm.md for a template's fields")
    if not isinstance(obj, dict):
        raise DataError(f"template file {path} must hold a JSON object; see docs/llm.md for the fields")
    known = {f.name for f in fields(Template)}
    unknown = set(obj) - known
    if unknown:
        raise DataError(f"template file {path} has unknown field(s) {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(sorted(known))}")
    obj.setdefault("name", path.stem)
    return check_template(replace(DEFAULT, **obj), str(path))


# ---------------------------------------------------------------- labels and questions


#: options ``letters`` can label (A-Z)
LETTERS_MAX = 26


def option_labels(n: int, style: str) -> list[str]:
    if style == "letters":
        if n > LETTERS_MAX:
            raise DataError(f"{n} options cannot be lettered A-Z; lower --max-candidates to 26 or less")
        return [chr(ord("A") + i) for i in range(n)]
    return [str(i + 1) for i in range(n)]


def _option_lines(t: Template, labels: Sequence[str], texts: Sequence[str]) -> str:
    return "\n".join(t.option.format(label=lab, text=txt) for lab, txt in zip(labels, texts))


def w2d_question(t: Template, word: str, definitions: Sequence[str]) -> str:
    labels = option_labels(len(definitions), t.labels)
    return t.w2d.format(word=word, options=_option_lines(t, labels, definitions), n=len(definitions))


def d2w_question(t: Template, definition: str, words: Sequence[str]) -> str:
    labels = option_labels(len(words), t.labels)
    return t.d2w.format(definition=definition, options=_option_lines(t, labels, words), n=len(words))


def coda_question(t: Template, contexts: Sequence[str], definitions: Sequence[str]) -> str:
    k = len(contexts)
    return t.coda.format(
        contexts=_option_lines(t, option_labels(k, "numbers"), contexts),
        definitions=_option_lines(t, option_labels(k, "letters"), definitions), k=k,
    )


# ---------------------------------------------------------------- the prompt


def has_chat_template(tokenizer) -> bool:
    return bool(getattr(tokenizer, "chat_template", None))


def require_chat_template(tokenizer, model_name: str) -> None:
    if not has_chat_template(tokenizer):
        raise ModelError(f"model {model_name!r} has no chat template (tokenizer.chat_template is empty); "
                         "drop --chat to use the plain prompt, or use an instruction-tuned model")


def build_prompt(t: Template, question: str, tokenizer=None, chat: bool = False) -> str:
    """The text the model continues: question + answer prefix, chat-wrapped with ``chat``."""
    if not chat:
        head = f"{t.system}\n\n" if t.system else ""
        return f"{head}{question}\n{t.answer}"
    messages = ([{"role": "system", "content": t.system}] if t.system else []) + [
        {"role": "user", "content": question}]
    try:
        text = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    except Exception as err:  # noqa: BLE001 - jinja2 raises TemplateError from inside the template
        hint = (" (some chat templates reject a system message: use a template without `system`)"
                if t.system else "")
        raise ModelError(f"the model's chat template failed on the prompt: {err}{hint}") from None
    return text + t.answer
