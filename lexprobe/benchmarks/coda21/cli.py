"""``lexprobe coda21 build|stats|sample-human|heatmap`` and CoDA21's part of ``lexprobe run``
(``eval`` is derived from ``benchmark.CodaConfig``). Each command's options are a declared dataclass
(``option(...)`` fields: ``core.options.add_options``; paths checked by ``outputs.guard`` before the
command runs), and the command a function of them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from lexprobe.benchmarks.coda21 import dataset as ds
from lexprobe.benchmarks.coda21.build_cache import cached_build
from lexprobe.benchmarks.coda21.config import CodaConfig, parts_of_speech
from lexprobe.benchmarks.coda21.recipe import RECIPES
from lexprobe.core.cli_common import batch_size_arg, non_negative_float, non_negative_int, positive_int
from lexprobe.core.options import add_commands, option
from lexprobe.data.coda21 import default_coda_dir
from lexprobe.data.locations import missing_message
from lexprobe.errors import DataError, LexprobeError
from lexprobe.outputs import IMAGE, INPUT, OUTPUT, output_lock
from lexprobe.reporting import command_lines, wrap_text, write_json

OFFICIAL_FILES = {"clean-easy": "CoDA-clean-easy.json", "clean-hard": "CoDA-clean-hard.json"}
#: how the file of the small set built from WordNet begins (``build_small``; results on it are marked samples)
SMALL_PREFIX = "coda21-small-"
#: groups per resumable chunk in ``lexprobe run`` (the likelihood method's progress steps)
RUN_CHUNK = 2
DEFAULT_CONTEXT_MODEL = "bert-base-uncased"
CONTEXT_SOURCES = ("semcor", "wordnet")


def resolve_coda_file(value: str) -> Path:
    """``--data``: a CoDA21 JSON file, or a variant name (``clean-hard``) read from the data directory."""
    if value in ds.VARIANTS and not Path(value).exists():
        path = default_coda_dir() / f"CoDA-{value}.json"
        if not path.is_file():
            offline = small_set_command("wordnet", "small.json")
            raise DataError(f"{missing_message(f'coda21-{value}')}; offline, `{offline}` builds the small set "
                            "`lexprobe run` uses, for --data small.json")
        return path
    return Path(value)


def load_items(config) -> ds.CodaData:
    """``--data``'s groups (a malformed one is named and skipped); ``--method choose``'s option orders and labels
    checked against the largest group before the (slow) model load."""
    if config.data is None:
        raise DataError("CoDA21 needs --data: a CoDA21 JSON file or a variant name (clean-hard, ...)")
    data = ds.load_coda(resolve_coda_file(config.data))
    for problem in data.problems:
        print(f"lexprobe: skipping {problem}")
    if not data.groups:
        raise DataError(f"{config.data} has no usable CoDA21 groups ({len(data.problems)} malformed)")
    if config.method == "choose":
        from lexprobe.prompting.choose import check_labels, check_permutations

        largest = max(g.k for g in data.groups)
        check_permutations(config.choose.permutations, largest, config.choose.max_candidates, squared=True)
        check_labels(config.choose.template, largest, config.choose.max_candidates,
                     lettered=True)  # the definitions are lettered whatever the template (coda_question)
    return data


@dataclass(frozen=True)
class Build:
    variant: str = option("clean-hard", "which CoDA21 variant to build", choices=ds.VARIANTS)
    out: str = option(None, "output JSON file (official format)", required=True, path=OUTPUT)
    pos: str = option("both", "part of speech", choices=("n", "v", "both"))
    semcor: str | None = option(None, "SemCor 3.0 NAF archive or folder (default: the data directory, "
                                      "`lexprobe data fetch semcor`; $LEXPROBE_SEMCOR)", path=INPUT)
    contexts: str = option("semcor", "where contexts come from: SemCor (the paper), or WordNet's own example "
                                     "sentences (no SemCor needed; with --variant noisy-hard and --context-model "
                                     "first, the small set `lexprobe run` builds offline)", choices=CONTEXT_SOURCES)
    embed_model: str = option("all-MiniLM-L6-v2", "sentence-embedding model for clustering definitions (paper: "
                                                  "stsb-distilbert-base)", path=INPUT)
    context_model: str = option(DEFAULT_CONTEXT_MODEL, "masked LM that picks each synset's context (paper: "
                                                       "bert-base-uncased); `first` takes the first SemCor sentence "
                                                       "instead", path=INPUT)
    k_min: int = option(5, "smallest group size", type=positive_int)
    k_max: int = option(10, "largest group size", type=positive_int)
    theta: float = option(0.8, "maximum definition similarity within a group", type=non_negative_float)
    max_groups: int | None = option(None, "stop after N groups per POS (small builds; default: all)",
                                    type=positive_int)
    device: str = option("auto", "auto, cpu, cuda or cuda:N")
    batch_size: int | str | None = option(None, "initial batch size of the embedding and context models "
                                                "(default: the model's)", type=batch_size_arg)
    recipe: str = option("paper", "paper: follow the paper's text; authors: reproduce the authors' released code",
                         choices=("paper", "authors"))


def _official_easy() -> Path:
    return default_coda_dir() / OFFICIAL_FILES["clean-easy"]


@dataclass(frozen=True)
class Stats:
    files: tuple[str, ...] = option((), "CoDA21 JSON files or variant names (clean-hard, ...) read from the data "
                                        "directory, as `coda21 eval --data` takes them (default: every CoDA21 file "
                                        "in the data directory)", flag="files", nargs="*")


@dataclass(frozen=True)
class SampleHuman:
    #: without --data the official file is read: guarded like a given --data
    data: str | None = option(None, "CoDA-clean-easy.json (default: the official file in the CoDA21 data folder)",
                              path=INPUT, implied=_official_easy)
    out: str = option(None, "output JSON file (official format; `coda eval --data` reads it)", required=True,
                      path=OUTPUT)
    size: int = option(20, "number of groups", type=positive_int)
    seed: int = option(42, "seed of the shuffle (the paper's S20: 42)", type=non_negative_int)
    pos: str = option("n", "part of speech of the groups", choices=("n", "v"))


@dataclass(frozen=True)
class Heatmap:
    result: str = option(None, "result JSON of `lexprobe coda eval`", required=True, path=INPUT)
    group: str = option(None, "group id (n/3) or index into the result's groups", required=True)
    out: str = option(None, "image file (.png, .pdf, .svg)", required=True, path=IMAGE)


# --- build ---------------------------------------------------------------------------

def _context_selector(model: str, device: str | None, batch_size: int | str | None, recipe: str = "paper"):
    from lexprobe.benchmarks.coda21.contexts import FirstContextSelector, MaskedContextSelector
    from lexprobe.models import load_scorer

    if model == "first":
        return FirstContextSelector()
    try:
        scorer = load_scorer(model, kind="masked", device=device, batch_size=batch_size)
    except LexprobeError as err:
        raise LexprobeError(f"{err} (for --context-model; pass a local masked LM or `--context-model first`)") from None
    # footnote 4 in both recipes (probabilities averaged): the authors' scorer is not released
    return MaskedContextSelector(scorer, average=RECIPES[recipe].context_average)


def cmd_build(args: Build) -> int:
    config = _build_config(args)
    with output_lock(args.out):  # a second build on --out stops here, before WordNet and the models load
        write_build(args, config, _build_inputs, f"CoDA21-{args.variant} (built)")
    print(f"\ndataset written to {args.out}")
    return 0


def _build_config(args: Build) -> Any:
    from lexprobe.benchmarks.coda21.builder import BuildConfig

    config = BuildConfig(variant=args.variant, k_min=args.k_min, k_max=args.k_max, theta=args.theta,
                         pos=parts_of_speech(args.pos), max_groups=args.max_groups, cluster=args.recipe,
                         word_rule=RECIPES[args.recipe].word_rule)
    config.validate()
    return config


def write_build(args: Build, config: Any, inputs: Callable[[Build], tuple], title: str) -> list:
    """The groups ``config`` describes, written to ``args.out`` (official format) and their statistics printed: the
    groups built before from the same inputs (``build_cache``), else built from ``inputs(args)`` (WordNet, SemCor's
    sentences, the context selector, the embedder). With an input missing there is no key: ``inputs`` then names
    every missing one in one line (``_build_inputs``)."""
    from lexprobe.benchmarks.coda21.build_cache import build_key
    from lexprobe.benchmarks.coda21.builder import build_coda
    from lexprobe.benchmarks.coda21.contexts import example_contexts
    from lexprobe.data.semcor import default_archive

    def build() -> list:
        wn, sentences, selector, embed = inputs(args)
        examples = example_contexts(wn, config.pos) if args.contexts == "wordnet" else None
        return build_coda(wn, sentences, embed, config, selector=selector, contexts=examples)

    path = Path(args.semcor) if args.semcor else default_archive()
    try:
        key = None if args.contexts == "semcor" and not path.exists() else build_key(
            config, args.contexts, path if args.contexts == "semcor" else None, args.embed_model, args.context_model,
            args.recipe)
    except LexprobeError:
        key = None
    groups = build() if key is None else cached_build(key, build)
    write_json(args.out, ds.groups_to_official(groups))
    print(ds.format_stats(ds.coda_stats(ds.CodaData(groups)), title=title))
    return groups


def _build_inputs(args: Build):
    """WordNet, SemCor's sentences (``--contexts semcor``), the context selector and the embedder, or
    ONE line naming every one of them that is missing (not one per try)."""
    from lexprobe.data.semcor import default_archive, iter_semcor_sentences
    from lexprobe.data.wordnet import load_wordnet
    from lexprobe.models import load_scorer

    lacking: list[str] = []

    def attempt(load: Callable[[], Any], note: str = "") -> Any:
        try:
            return load()
        except LexprobeError as err:
            lacking.append(f"{err}{note}")
            return None

    wn, sentences = attempt(load_wordnet), None
    if args.contexts == "semcor":
        path = Path(args.semcor) if args.semcor else default_archive()
        if path.exists():
            sentences = iter_semcor_sentences(args.semcor)
        else:
            lacking.append(f"SemCor 3.0 not found at {path} (`lexprobe data fetch semcor`, --semcor PATH, or "
                           "--contexts wordnet for WordNet's example sentences)")
    selector = attempt(lambda: _context_selector(args.context_model, args.device, args.batch_size, args.recipe))
    embedder = attempt(lambda: load_scorer(args.embed_model, kind="embedding", device=args.device,
                                           batch_size=args.batch_size), " (for --embed-model)")
    if lacking:
        raise DataError(f"coda21 build lacks {len(lacking)} thing(s): " + " | ".join(lacking))
    return wn, sentences, selector, embedder.encode


# --- stats / heatmap ---------------------------------------------------------------

def stats_files(names: tuple[str, ...]) -> list[Path]:
    """``coda21 stats``' operands as ``eval --data`` reads them (a file, an exported folder, or a variant name read
    from the data directory: ``resolve_coda_file``); none: every variant the data directory holds."""
    if names:
        return [resolve_coda_file(name) for name in names]
    found = [default_coda_dir() / f"CoDA-{variant}.json" for variant in ds.VARIANTS]
    found = [path for path in found if path.is_file()]
    if not found:
        raise DataError(f"no CoDA21 file in {default_coda_dir()}: `lexprobe data fetch coda21` gets the official "
                        "ones, or name files (or variants) to read")
    return found


def cmd_stats(args: Stats) -> int:
    for i, path in enumerate(stats_files(args.files)):
        data = ds.load_coda(path, option="the file argument of `coda stats`")
        if i:
            print()
        print(ds.format_stats(ds.coda_stats(data), title=str(path)))
        for problem in data.problems:
            print(f"  malformed: {problem}")
    return 0


def cmd_sample_human(args: SampleHuman) -> int:
    from lexprobe.benchmarks.coda21.human import write_sample

    source = args.data or _official_easy()
    sample = write_sample(source, args.out, size=args.size, seed=args.seed, pos=args.pos)
    groups = sample[args.pos]
    print(f"{len(groups)} groups sampled from {source} (seed {args.seed}, duplicate contexts skipped):")
    for gid, g in zip(sample["sample"]["groups"], groups):
        print(f"  {gid:7s} k={len(g['candidates']):2d}  {g['common_ancestor_info'].get('ancestor_name', '')}")
    print(f"sample written to {args.out}")
    return 0


def cmd_heatmap(args: Heatmap) -> int:
    from lexprobe.benchmarks.coda21.plot import draw_heatmap, find_group, load_result

    instance = find_group(load_result(args.result), args.group)
    path = draw_heatmap(instance, args.out)
    print(f"heatmap of group {instance['id']} written to {path}")
    return 0


#: CoDA21's commands besides ``eval`` (which ``lexprobe.cli`` derives from ``CodaConfig``): name -> (options, help,
#: command); stats takes its files as a positional
COMMANDS: dict[str, tuple[type, str, Callable[[Any], int]]] = {
    "build": (Build, "build a CoDA21-style dataset from WordNet and SemCor", cmd_build),
    "stats": (Stats, "Table-1 statistics of CoDA21 files", cmd_stats),
    "sample-human": (SampleHuman, "the paper's human-evaluation subset S20 (20 clean-easy noun groups, seed 42)",
                     cmd_sample_human),
    "heatmap": (Heatmap, "draw one group's match scores with predicted and gold alignment", cmd_heatmap),
}

def register_commands(csub: Any) -> None:
    """The benchmark's ``commands`` part: the commands above on its sub-parser."""
    add_commands(csub, COMMANDS)


# --- lexprobe run --------------------------------------------------------------------


def scored_line(path: Path, groups, result: dict) -> str:
    """"clean-hard: 106 noun and 102 verb groups in the file; smollm2-135m-instruct scored 4 and 4 (--limit 4)":
    the groups a part had and the groups its model scored, in the console (the report said it only)."""
    from collections import Counter

    from lexprobe.core.result_schema import model_name

    have = Counter(g.pos for g in groups)
    metrics = result["metrics"]["alignment"]
    scored = [str((metrics.get(p) or {}).get("n", 0)) for p in ("n", "v") if have.get(p)]
    limit = result["config"].get("limit")
    return (f"{Path(path).name}: {' and '.join(f'{have[p]} {ds.POS_NAMES[p]}' for p in ('n', 'v') if have.get(p))} "
            f"groups in the file; {model_name(result)} scored {' and '.join(scored)}"
            + (f" (--limit {limit}: the first {limit} per POS)" if limit else ""))

#: the small set's size (groups per POS) and variant by the contexts' source
SMALL_GROUPS = 15
SMALL_VARIANTS = {"semcor": "clean-hard", "wordnet": "noisy-hard"}


def build_small(out_dir: Path, embed, max_groups: int = SMALL_GROUPS, embed_model: str = "all-MiniLM-L6-v2") -> Path:
    """A small CoDA21-style file from WordNet and SemCor (clean-hard) or, without SemCor, WordNet's example
    sentences (noisy-hard: one context per synset is all they give): ``small_set_command``'s file and cached
    build, so either reuses the other's (``embed_model``: the reference ``embed`` encodes with, for the key)."""
    from lexprobe.data.semcor import default_archive, iter_semcor_sentences
    from lexprobe.data.wordnet import load_wordnet

    contexts = "semcor" if default_archive().exists() else "wordnet"
    if contexts == "wordnet":
        print("SemCor not found: contexts come from WordNet's example sentences (noisy-hard)")
    path = Path(out_dir) / f"{SMALL_PREFIX}{SMALL_VARIANTS[contexts]}.json"
    # exactly the `coda21 build` small_set_command prints (its other options left at their defaults)
    args = Build(out=str(path), variant=SMALL_VARIANTS[contexts], contexts=contexts, embed_model=embed_model,
                 context_model="first", max_groups=max_groups)

    def inputs(args: Build) -> tuple:  # the caller's embedder; the first context of each synset (no model)
        return load_wordnet(), iter_semcor_sentences() if contexts == "semcor" else None, None, embed

    write_build(args, _build_config(args), inputs, f"small CoDA21-{args.variant} built at {path}")
    print("the same file:\n" + command_lines(small_set_command(contexts, "FILE.json", max_groups)))
    return path


def small_set_command(contexts: str, out: str, max_groups: int = SMALL_GROUPS) -> str:
    """The ``coda21 build`` command line that makes ``lexprobe run``'s small set."""
    return (f"lexprobe coda21 build --variant {SMALL_VARIANTS[contexts]} --contexts {contexts} --context-model first "
            f"--max-groups {max_groups} --out {out}")


#: the small sets this process built, per output folder: the main job's parts share one (a build takes seconds)
_BUILT: dict[Path, Path] = {}


def _small_set(out_dir: Path, scorer, coda_dir: Path) -> Path:
    from lexprobe.models import load_scorer

    key = out_dir.resolve()
    if key in _BUILT and _BUILT[key].is_file():
        print(wrap_text(f"official CoDA21 files not found in {coda_dir}: on the small set built before, {_BUILT[key]}"))
    else:
        print(wrap_text(f"official CoDA21 files not found in {coda_dir} (`lexprobe data fetch coda21` gets them); "
                        "building a small set from WordNet"))
        own = getattr(scorer, "kind", None) == "embedding"  # a sentence encoder (not static vectors)
        embed = scorer.encode if own else load_scorer("all-MiniLM-L6-v2", kind="embedding").encode
        model = (getattr(scorer, "path", None) or scorer.name) if own else "all-MiniLM-L6-v2"
        _BUILT[key] = build_small(out_dir, embed, embed_model=str(model))
    return _BUILT[key]


def run_default(out_dir: Path, part) -> dict:
    """CoDA21 on the official clean files when present, else on a small self-built set. ``part`` (``RunPart``):
    the model and method; ``part.sample``: the first N groups per POS (default: all); ``part.data``: the one
    official file to use (default: both clean ones)."""
    from lexprobe.core.evaluate import run_part
    from lexprobe.core.registry import get
    from lexprobe.models import load_scorer
    from lexprobe.prompting.choose_cli import ChooseOptions

    out_dir = Path(out_dir)
    scorer = load_scorer(part.model, **part.options)
    coda_dir = default_coda_dir()
    wanted = {n: f for n, f in OFFICIAL_FILES.items() if part.data in (None, n)}
    files = {name: coda_dir / f for name, f in wanted.items() if (coda_dir / f).is_file()}
    sample_data = None
    if not files:
        files = {"small": _small_set(out_dir, scorer, coda_dir)}
        sample_data = {"what": "a small CoDA21-style set built from WordNet (the official files are missing)",
                       "get": "lexprobe data fetch coda21"}
    metrics = {}
    bench = get("coda21")
    choose = {"choose": ChooseOptions(chat=part.chat, units_per_batch=1)} if part.method == "choose" else {}
    for name, path in files.items():
        # two groups per resumable chunk: the progress bar moves every few seconds on two CPU cores
        config = CodaConfig(data=str(path), limit=part.sample, method=part.method, groups_per_chunk=RUN_CHUNK,
                            **choose)  # type: ignore[arg-type]
        out = out_dir / f"{part.stem(f'coda21-{name}')}.json"
        items = bench.items.load(config)
        result = run_part(bench, part, config, out, scorer=scorer, items=items,
                          heading=name if len(files) > 1 else None)
        print(wrap_text(scored_line(path, items.groups, result)))
        print(wrap_text(f"CoDA21 {name} results written to {out}"))
        metrics[name] = result["metrics"]
    return {"metrics": metrics, "sample_data": sample_data}
