"""What a benchmark's export is: one small declaration per benchmark (``BenchmarkExport``), read by both exports.

Why: ``lexprobe export hf`` and ``lexprobe export lm-eval`` loop over benchmarks; what differs between
benchmarks is only which items they export (``select``: the parts, their configurations and sources, from
the same data options as ``eval``), what the card says about them (title, licences, citation, how they were
built) and which lm-eval tasks they make (``lm_eval``: the prompts, built by the benchmark's own code, in
one of the three forms ``lm_eval.py`` knows). A fourth benchmark adds a module with its ``EXPORT`` and one
line in ``registry.py``; nothing else changes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from lexprobe.data.exported import RowFormat


@dataclass(frozen=True)
class ExportOptions:
    """The data options every export takes, read as ``eval`` reads them (``--data``, ``--pos``, ``--limit``,
    ``--seed``): the same options select the same items. ``pos``: the words given (None: all), read by each
    benchmark through its own ``eval --pos`` declaration (``pos_of``)."""

    data: str | None = None
    pos: str | tuple[str, ...] | None = None
    limit: int | None = None
    seed: int = 0

    def pos_of(self, config: type, benchmark: str) -> Any:
        """``pos`` as ``lexprobe <benchmark> eval --pos`` takes it (``config``: the benchmark's ``Config``, where
        the option is declared once): WDLMPro's and CoDA21's ``n``, ``v`` or ``both``, WSD's any of ``N V A R``;
        a value that ``eval`` refuses is one line."""
        from lexprobe.core.options import option_value

        return option_value(config, "pos", self.pos, benchmark)


@dataclass(frozen=True)
class Source:
    """Where exported items came from, as the card states it: a licence always (``no licence`` is said too)."""

    name: str
    licence: str
    upstream: str
    pin: str
    sha256: str | None = None
    redistributable: bool = True
    #: the Hugging Face Hub's licence id for the card's header: ``unknown`` (no licence), ``other`` (with
    #: ``licence_name`` and ``licence_link``) or an SPDX-like id; None: covered by another source's licence
    hub_licence: str | None = "unknown"
    licence_name: str | None = None
    licence_link: str | None = None


@dataclass
class PartRows:
    """One part to write (one parquet file): its key (``ROWS.key``), its folder in the export, its rows, and the
    groups of its source that could not be used (``{"group", "reason"}``)."""

    key: dict[str, str]
    folder: str
    rows: list[dict]
    problems: list[dict[str, str]] = field(default_factory=list)


@dataclass(frozen=True)
class Configuration:
    """A Hugging Face dataset configuration: a name and the part folders it reads (``default``: what
    ``load_dataset(DIR)`` loads)."""

    name: str
    folders: tuple[str, ...]
    default: bool = False


@dataclass
class Selection:
    """What one export of a benchmark holds."""

    parts: list[PartRows]
    configurations: list[Configuration]
    sources: list[Source]
    built: str  #: Markdown: how these items were built and selected (the card's "How it was built")
    items: Any = None  #: the benchmark's own items (groups), for the lm-eval tasks
    canary: str | None = None  #: a source's canary string, kept on the card and in every file


#: the forms of lm-eval task ``lm_eval.py`` writes (the doc fields each needs):
#: ``contexts``: one continuation after each of several contexts, gold context ``gold`` (lm-eval's
#: multiple-input form, as winogrande); ``continuations``: several continuations after one context;
#: ``alignment``: k contexts x k continuations, gold = the identity (the task's own requests and results);
#: ``senses``: several continuations after one context, any of ``golds`` right, the first best chosen (WSD)
LM_EVAL_FORMS = ("contexts", "continuations", "alignment", "senses")


@dataclass(frozen=True)
class LMEvalTask:
    """One lm-eval task: its name, form, the group it is averaged into, and its docs (``id`` and the form's
    fields: ``contexts`` + ``continuation`` + ``gold``; ``context`` + ``continuations`` + ``gold``; ``contexts``
    + ``continuations``), plus any fields worth reading beside the scores."""

    name: str
    form: str
    group: str
    docs: list[dict]
    description: str


@dataclass(frozen=True)
class BenchmarkExport:
    benchmark: str
    pretty_name: str
    rows: RowFormat
    summary: str  #: the card's first paragraph
    citation: str  #: BibTeX of the paper
    task_categories: tuple[str, ...]
    select: Callable[[ExportOptions], Selection]
    lm_eval: Callable[[Selection], list[LMEvalTask]]
    #: Markdown: what lm-eval's machinery changes against lexprobe's own run (README of the lm-eval export)
    lm_eval_notes: str = ""
    #: the languages of its texts (ISO 639-1), as the card's header lists them
    languages: tuple[str, ...] = ("en",)
