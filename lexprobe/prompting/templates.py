"""Prompt templates of the choose method, and how a prompt is put together.

A template is a handful of format strings: each benchmark declares its own fields
(``Benchmark.template_fields``) and this module adds the shared ones (``option``, ``answer``, ``labels``,
``system``). A run resolves its template with its own benchmark's fields only, so a result and its resume
key do not change when another benchmark is registered. ``answer`` is the answer prefix every request
carries. Templates ship by name (``shipped()``: built when asked, since the benchmarks' fields come from the
registry); ``--template FILE`` reads a JSON object of the same fields,
missing ones taken from ``default``.
"""

from __future__ import annotations

import string
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from lexprobe.asking.requests import Message, Prompt
from lexprobe.data.files import read_json
from lexprobe.errors import DataError

LABEL_STYLES = ("numbers", "letters")
BLANK = "___"


@dataclass(frozen=True)
class TemplateField:
    """A benchmark's field of the choose templates (``Benchmark.template_fields``)."""

    placeholders: frozenset[str]  #: what the text may use
    texts: dict[str, str]  #: its text by shipped template name; "default" is required, the others fall back to it
    required: frozenset[str] = frozenset()  #: placeholders it cannot do without (a question without its options)
    after_answer: bool = False  #: a line read after the answer prefix (recorded after ``answer``), not a question


@dataclass(frozen=True)
class Template:
    """A resolved template: the shared fields, and the benchmarks' (``fields``: (name, text), declared order;
    ``after_answer``: which of them are lines read after the answer prefix)."""

    name: str
    fields: tuple[tuple[str, str], ...] = ()
    option: str = "{label}. {text}"
    answer: str = "Answer:"
    labels: str = "numbers"  # the options' labels (a benchmark's question may letter a second list itself)
    system: str | None = None
    after_answer: tuple[str, ...] = ()

    def __getattr__(self, name: str) -> Any:
        """A benchmark's field by name (``t.<field>``)."""
        for key, text in self.__dict__.get("fields", ()):
            if key == name:
                return text
        raise AttributeError(f"template has no field {name!r}")

    def record(self) -> dict:
        """As results record it: name, the questions, option, answer, the after-answer lines, labels, system."""
        own = dict(self.fields)
        questions = {k: v for k, v in own.items() if k not in self.after_answer}
        lines = {k: v for k, v in own.items() if k not in questions}
        return {"name": self.name, **questions, "option": self.option, "answer": self.answer, **lines,
                "labels": self.labels, "system": self.system}


#: the fields every benchmark shares: (placeholders, required placeholders)
_SHARED = {"option": ({"label", "text"}, {"label", "text"}), "answer": (set(), set())}
_SHARED_FIELDS = ("name", "option", "answer", "labels", "system")

#: the shipped templates' shared fields (each benchmark's text of them: ``TemplateField.texts``)
_SHIPPED_SHARED: dict[str, dict[str, Any]] = {
    "default": {},
    # letters avoid the "1" / "10" label-prefix clash of numbered lists (MMLU style)
    "letters": {"labels": "letters"},
    "dictionary": {"system": "You are a careful lexicographer. Answer exactly in the format asked for."},
}


#: a benchmark's template fields by name (``Benchmark.template_fields``)
Fields = dict[str, TemplateField]


def benchmark_fields() -> Fields:
    """Every registered benchmark's template fields, in registry order (a name declared twice is an error)."""
    from lexprobe.core.registry import all_benchmarks

    out: dict[str, TemplateField] = {}
    for bench in all_benchmarks():
        for key, declared in bench.template_fields.items():
            if key in out or key in _SHARED_FIELDS or key == "fields":
                raise ValueError(f"template field {key!r} of {bench.meta.name} is declared twice")
            out[key] = declared
    return out


def shipped(fields: Fields | None = None) -> dict[str, Template]:
    """The shipped templates by name, with ``fields`` (one benchmark's; None: every registered benchmark's)."""
    declared = benchmark_fields() if fields is None else fields
    after = tuple(k for k, f in declared.items() if f.after_answer)
    return {name: Template(name, tuple((k, f.texts.get(name, f.texts["default"])) for k, f in declared.items()),
                           after_answer=after, **shared)
            for name, shared in _SHIPPED_SHARED.items()}


def default_template(fields: Fields | None = None) -> Template:
    return shipped(fields)["default"]


def _fields_used(text: str) -> set[str]:
    """The placeholders of ``text``; a format spec or conversion (``{word:>99999999999}``) is refused before
    the model loads, rather than failing (or filling memory) when formatting."""
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


def check_template(t: Template, declared: Fields, source: str = "") -> Template:
    where = f" in {source}" if source else ""
    if t.labels not in LABEL_STYLES:
        raise DataError(f"template labels {t.labels!r}{where} must be one of {', '.join(LABEL_STYLES)}")
    # each field's (allowed, required) placeholders, in record order
    questions = {k: (set(f.placeholders), set(f.required)) for k, f in declared.items() if not f.after_answer}
    lines = {k: (set(f.placeholders), set(f.required)) for k, f in declared.items() if f.after_answer}
    for name, (allowed, required) in {**questions, **_SHARED, **lines}.items():
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
        missing = required - used
        if missing:
            raise DataError(f"template field {name!r}{where} lacks placeholder(s) "
                            f"{', '.join('{' + m + '}' for m in sorted(missing))}; add them")
    if t.system is not None and not isinstance(t.system, str):
        raise DataError(f"template field 'system'{where} must be a string or null")
    return t


def load_template(name_or_path: str, fields: Fields | None = None) -> Template:
    """A shipped template by name, or a JSON file whose fields override ``default``, with ``fields`` (None:
    every registered benchmark's). A file may hold any registered benchmark's fields; ``fields``' are kept."""
    declared = benchmark_fields() if fields is None else fields
    ship = shipped(declared)
    if name_or_path in ship:
        return ship[name_or_path]
    path = Path(name_or_path)
    if not path.is_file():
        raise DataError(f"--template {name_or_path!r} is neither a shipped template "
                        f"({', '.join(ship)}) nor a JSON file")
    obj = read_json(path, "see docs/llm.md for a template's fields")
    if not isinstance(obj, dict):
        raise DataError(f"template file {path} must hold a JSON object; see docs/llm.md for the fields")
    default = ship["default"]
    own = dict(default.fields)
    known = set(_SHARED_FIELDS) | set(own) | set(benchmark_fields() if fields is not None else ())
    unknown = set(obj) - known
    if unknown:
        raise DataError(f"template file {path} has unknown field(s) {', '.join(sorted(unknown))}; "
                        f"known: {', '.join(sorted(known))}")
    obj.setdefault("name", path.stem)
    shared = {k: v for k, v in obj.items() if k in _SHARED_FIELDS}
    return check_template(replace(default, fields=tuple((k, obj.get(k, text)) for k, text in own.items()), **shared),
                          declared, str(path))


#: options ``letters`` can label (A-Z)
LETTERS_MAX = 26


def option_labels(n: int, style: str) -> list[str]:
    if style == "letters":
        if n > LETTERS_MAX:
            raise DataError(f"{n} options cannot be lettered A-Z; lower --max-candidates to 26 or less")
        return [chr(ord("A") + i) for i in range(n)]
    return [str(i + 1) for i in range(n)]


def option_lines(t: Template, labels: Sequence[str], texts: Sequence[str]) -> str:
    """The options of a question, one ``t.option`` line each ("1. a domesticated animal")."""
    return "\n".join(t.option.format(label=lab, text=txt) for lab, txt in zip(labels, texts))


def build_prompt(t: Template, question: str, chat: bool = False) -> Prompt:
    """What the model is asked before the answer prefix: the question as plain text (after the system line,
    ending the line), or chat messages [system?, user]."""
    if not chat:
        head = f"{t.system}\n\n" if t.system else ""
        return f"{head}{question}\n"
    return ((Message("system", t.system),) if t.system else ()) + (Message("user", question),)
