"""CoDA21's export: the groups of each variant the user has, per part of speech, and one lm-eval alignment task each.

The items are those ``lexprobe coda21 eval`` reads with the same options (``load_coda`` then
``likelihood.select_groups``): every official file in the data directory (``lexprobe data list``), or the
file ``--data`` names. CoDA21's files carry no licence: the card says so, and that they are for evaluation
and not to be redistributed; their canary string is kept on the card and in every parquet file. The
lm-eval prompts are lexprobe's causal-LM prompts (``likelihood.prompt``: the context with its word hidden
by the nonce, then ``Definition of bkatuhla is``, verbs ``... is to``), each followed by every definition.
"""

from __future__ import annotations

from pathlib import Path

from lexprobe.benchmarks.coda21 import dataset as ds
from lexprobe.core.exports import (
    BenchmarkExport,
    Configuration,
    ExportOptions,
    LMEvalTask,
    PartRows,
    Selection,
    Source,
)
from lexprobe.errors import DataError

CITATION = """@inproceedings{senel-etal-2022-coda21,
    title = "{C}o{DA}21: Evaluating Language Understanding Capabilities of {NLP} Models With Context-Definition Alignment",
    author = {Senel, L{\\"u}tfi Kerem and Schick, Timo and Sch{\\"u}tze, Hinrich},
    booktitle = "Proceedings of the 60th Annual Meeting of the Association for Computational Linguistics",
    year = "2022",
    publisher = "Association for Computational Linguistics",
    eprint = "2203.06228",
    archivePrefix = "arXiv",
}"""

SUMMARY = ("CoDA21 (Senel, Schick & Schütze 2022) gives, for a group of k WordNet co-hyponyms, one context per "
           "word with the word hidden and the k definitions; a model has to align contexts and definitions one to "
           "one. Each row is a group: `candidates` in file order, candidate i's context belongs with candidate "
           "i's definition (`word` is the hidden surface form). `id` is the group's position in the official "
           "file (`n/17`: the 18th noun group).")

BUILT = """The CoDA21 authors built the groups from WordNet 3.0 synsets (co-hyponyms under a common parent or
grandparent) with one context per synset from SemCor (clean variants: contexts a model judged to fit the synset;
noisy: no such filter); hard and easy differ in how similar the group's definitions are (lksenel/CoDA21). lexprobe
reads the official JSON files and keeps, per candidate, what every method reads: synset, definition, the first
context and the word hidden in it (the official files have exactly one of each)."""

NOTES = """- Each group is one lm-eval doc: its k prompts (lexprobe's causal-LM prompt: the context with its word
  replaced by `bkatuhla`, then `Definition of bkatuhla is`, verbs `... is to`) are lm-eval's multiple inputs,
  each followed by every definition: k x k log-likelihoods, summed over the definition's tokens, aligned by
  the task's own `process_results` (Hungarian, the definitions first put in lexprobe's seeded order per group
  id, so a tie never favours the gold alignment). `acc` equals lexprobe's alignment accuracy, `simple_acc`
  its simple-matching accuracy, with `--normalize sum` (the default).
- lexprobe cuts a definition to its first 48 tokens (`max_definition_tokens`) for a language model; lm-eval
  scores all of them: only definitions longer than 48 of the model's tokens differ.
- `--normalize mean` (the average over the definition's tokens) has no lm-eval counterpart: lm-eval hands a
  task only the summed log-likelihood. Masked LMs (pseudo-log-likelihood), `--method ask` and `choose`, and
  the authors' recipe stay in lexprobe.
- A prompt too long for the model: lexprobe cuts the prompt's start (and skips a group whose definition alone
  does not fit), lm-eval cuts the start of context + definition together."""


def _files(options: ExportOptions) -> list[tuple[str, Path]]:
    """(variant, path) of every file to export: ``--data`` (a file, a variant name, an exported folder), or every
    official variant in the data directory."""
    from lexprobe.benchmarks.coda21.cli import resolve_coda_file

    if options.data:
        path = resolve_coda_file(options.data)
        return [(_variant_of(path), path)]
    from lexprobe.data.locations import entry_path

    found = [(v, entry_path(f"coda21-{v}")) for v in ds.VARIANTS]
    found = [(v, p) for v, p in found if p.is_file()]
    if not found:
        raise DataError("no CoDA21 file in the data directory; run `lexprobe data fetch coda21` (or "
                        "`lexprobe data import coda21-<variant> FILE`), or pass --data FILE")
    return found


def _variant_of(path: Path) -> str:
    """``clean-hard`` for ``CoDA-clean-hard.json``; another file's or folder's name, made a configuration name (and
    a folder's: ASCII letters and digits, ``-`` for the rest, a name ``outputs.files_inside`` takes)."""
    for v in ds.VARIANTS:
        if path.name in (f"CoDA-{v}.json", v):
            return v
    stem = path.stem if path.is_file() else path.name
    name = "".join(ch if ch.isascii() and ch.isalnum() else "-" for ch in stem).lower()
    return name.strip("-")[:60].strip("-") or "data"


def _source(variant: str, path: Path) -> Source:
    from lexprobe.data.registry import DATASETS
    from lexprobe.provenance import file_sha256

    digest = file_sha256(path) if path.is_file() else None
    registered = DATASETS.get(f"coda21-{variant}")
    pinned = registered is not None and digest is not None and any(f.sha256 in (None, digest) for f in registered.files)
    if registered is not None and pinned:
        return Source(registered.title, registered.licence, f"{registered.upstream} {registered.upstream_path}",
                      registered.pin, digest, redistributable=registered.redistributable)
    return Source(f"CoDA21-style file {path.name}", "not a registered CoDA21 release: its licence is its maker's to "
                  "state (an official release has none: use for evaluation, do not redistribute)", str(path.name),
                  "-", digest, redistributable=False)


def _canary(path: Path) -> str | None:
    if not path.is_file():
        return None
    from lexprobe.data.files import read_json

    obj = read_json(path, "pass an official CoDA21 file")
    canary = obj.get("canary") if isinstance(obj, dict) else None
    return canary if isinstance(canary, str) else None


def select(options: ExportOptions) -> Selection:
    from lexprobe.benchmarks.coda21.config import CodaConfig, parts_of_speech
    from lexprobe.benchmarks.coda21.likelihood import select_groups

    parts, configurations, sources, items, canaries = [], [], [], [], set()
    chosen = options.pos_of(CodaConfig, "coda21")
    for variant, path in _files(options):
        data = ds.load_coda(path, pos=parts_of_speech(chosen))
        groups = select_groups(data, CodaConfig(data=str(path), pos=chosen, limit=options.limit))
        folders = []
        for pos in parts_of_speech(chosen):
            rows = [ds.group_to_row(g) for g in groups if g.pos == pos]
            problems = [{"group": p.group_id, "reason": p.reason} for p in data.problems
                        if p.group_id.split("/")[0] == pos]
            if rows or problems:
                folder = f"{variant}/{ds.POS_NAMES[pos]}"
                parts.append(PartRows({"variant": variant, "pos": pos}, folder, rows, problems))
                folders.append(folder)
        configurations.append(Configuration(variant, tuple(folders)))
        configurations += [Configuration(f.replace("/", "-"), (f,)) for f in folders]
        sources.append(_source(variant, path))
        items.append((variant, groups))
        canaries.add(_canary(path))
    default = next((c for c in configurations if c.name == "clean-hard"), configurations[0])
    configurations = [Configuration(c.name, c.folders, c is default) for c in configurations]
    canary = "; ".join(sorted(c for c in canaries if c)) or None
    return Selection(parts, configurations, sources, _built(options, parts), items=items, canary=canary)


def _built(options: ExportOptions, parts: list[PartRows]) -> str:
    from lexprobe.tables import md_code

    counts = ", ".join(f"{md_code(p.folder)}: {len(p.rows)} groups" + (f" ({len(p.problems)} malformed in the source, listed "
                                                              "in lexprobe-export.json)" if p.problems else "")
                       for p in parts)
    limit = f"; the first {options.limit} groups of each part of speech (`--limit`)" if options.limit else ""
    return f"{BUILT}\n\nThis export: {counts}{limit}."


def lm_eval(selection: Selection) -> list[LMEvalTask]:
    from lexprobe.benchmarks.coda21.likelihood import prompt

    tasks = []
    for variant, groups in selection.items:
        name = variant.replace("-", "_")
        for pos in ("n", "v"):
            docs = []
            for g in (g for g in groups if g.pos == pos):
                try:  # the paper recipe's whole-word hiding; a group it cannot hide is skipped, as lexprobe skips it
                    prompts = [prompt(c.context, c.word, g.pos) for c in g.candidates]
                except ValueError:
                    continue
                docs.append({"id": g.id, "pos": pos, "k": g.k, "synsets": [c.synset for c in g.candidates],
                             "contexts": prompts, "continuations": [c.definition for c in g.candidates]})
            if docs:
                tasks.append(LMEvalTask(f"lexprobe_coda21_{name}_{ds.POS_NAMES[pos]}", "alignment",
                                        f"lexprobe_coda21_{name}", docs,
                                        f"CoDA21 {variant}, {ds.POS_NAMES[pos]}s: align contexts and definitions"))
    return tasks


EXPORT = BenchmarkExport(
    benchmark="coda21", pretty_name="CoDA21", rows=ds.ROWS, summary=SUMMARY, citation=CITATION,
    task_categories=("multiple-choice",), select=select, lm_eval=lm_eval, lm_eval_notes=NOTES,
)
