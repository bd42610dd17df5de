"""``lexprobe senserank eval|finetune`` and the sense-ranking part of ``lexprobe run``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lexprobe.cli_common import non_negative_int, path_arg, positive_float, positive_int
from lexprobe.outputs import INPUT, OUTPUT_DIR, make_output_dir, output_lock

FINETUNE_SIZES = (100, 250, 500, 1000, 2500)
#: what ``pdep-convert`` writes into its --out folder
PDEP_FILES = ("pdep_train.conllu", "pdep_test.conllu")
#: ``lexprobe run`` sample: whole SemCor lemmas (seed 0) until D+Q reaches this many instances
DEFAULT_SAMPLE_INSTANCES = 4000


def register_commands(sub) -> None:
    """Sense ranking's commands besides ``eval`` (which ``lexprobe.cli`` derives from ``SenseConfig``)."""
    from lexprobe.cli_common import add_recipe_arg

    c = sub.add_parser("pdep-convert", help="make the paper's PDEP corpus (CoNLL-U, 80/20) from PDEP's prepcorp table")
    # the paths are declared: outputs.guard checks them (no input among the files written) before the command runs
    path_arg(c, "--prepcorp", kind=INPUT, required=True, help="PDEP SQLite file with the prepcorp table (prepcorp.sqlite)")
    path_arg(c, "--out", kind=OUTPUT_DIR, writes=PDEP_FILES, required=True,
             help="directory for pdep_train.conllu and pdep_test.conllu")
    c.add_argument("--seed", type=non_negative_int, default=0, help="seed of the 80/20 shuffle (the authors' was unseeded)")
    c.set_defaults(func=_cmd_pdep_convert)

    f = sub.add_parser("finetune", help="inoculation fine-tuning on STREUSLE 4.4 supersenses")
    path_arg(f, "--model", kind=INPUT, default="all-MiniLM-L6-v2", help="encoder to fine-tune")
    f.add_argument("--instances", type=int, choices=FINETUNE_SIZES, required=True,
                   help="training instances, equal numbers of nouns, verbs and prepositions")
    path_arg(f, "--out", kind=OUTPUT_DIR, required=True, help="folder for the fine-tuned encoder")
    path_arg(f, "--path", kind=INPUT, help="STREUSLE 4.4 folder (default: the data directory, `lexprobe data fetch streusle`)")
    f.add_argument("--epochs", type=positive_int, default=40, help="most training epochs")
    f.add_argument("--patience", type=positive_int, default=3, help="epochs without dev improvement before stopping")
    f.add_argument("--lr", type=positive_float, default=2e-5, help="learning rate")
    f.add_argument("--batch-size", type=positive_int, default=16, help="training batch size")
    f.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    f.add_argument("--seed", type=non_negative_int, default=0, help="seed of the sample and the training")
    add_recipe_arg(f)
    f.set_defaults(func=_cmd_finetune)


def _cmd_pdep_convert(args: argparse.Namespace) -> int:
    from lexprobe.data.pdep_rules import convert_prepcorp, read_prepcorp
    from lexprobe.errors import DataError

    if not Path(args.prepcorp).is_file():
        raise DataError(f"{args.prepcorp} not found; pass PDEP's prepcorp.sqlite with --prepcorp")
    train, test, counts = convert_prepcorp(read_prepcorp(args.prepcorp), seed=args.seed)
    out = make_output_dir(args.out, "--out")
    from lexprobe.outputs import write_atomic

    for name, text in zip(PDEP_FILES, (train, test)):
        write_atomic(out / name, text)
    print(", ".join(f"{reason}: {n}" for reason, n in counts.most_common()))
    print(f"wrote {out / 'pdep_train.conllu'} and {out / 'pdep_test.conllu'}")
    return 0


def _cmd_finetune(args: argparse.Namespace) -> int:
    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune

    make_output_dir(args.out, "--out")  # outputs.guard checked it; the folder's lock lives inside it

    cfg = FinetuneConfig(
        model=args.model, instances=args.instances, out=args.out, path=args.path, epochs=args.epochs,
        patience=args.patience, lr=args.lr, batch_size=args.batch_size, device=args.device, seed=args.seed,
        recipe=args.recipe,
    )
    with output_lock(args.out, folder=True):  # a second fine-tuning into --out stops here, before STREUSLE loads
        summary = finetune(cfg)
    if summary["best_dev_accuracy"] is None:
        kept = (f"last epoch kept, lowest eval-mode loss on the training data at epoch {summary['best_epoch']}; "
                f"the authors' script trains every --instances label on these 99 (33 per POS)")
    else:
        kept = f"best dev accuracy {summary['best_dev_accuracy']:.3f} at epoch {summary['best_epoch']}"
    print(
        f"fine-tuned {args.model} on {summary['train_instances']} STREUSLE instances "
        f"({summary['epochs_run']} epochs, {kept}); encoder saved to {args.out}; evaluate it with "
        f"`lexprobe senserank eval --model {args.out} --out FILE.json`",
        file=sys.stdout,
    )
    return 0


def run_default(out_dir, model: str = "all-MiniLM-L6-v2", sample: int | None = None,
                stem: str = "senserank-semcor", options: dict | None = None) -> dict:
    """SemCor sample for ``lexprobe run``: whole SemCor lemmas, drawn with seed 0, until the
    database plus queries reach ``sample`` instances (default DEFAULT_SAMPLE_INSTANCES)."""
    from lexprobe.benchmarks.evaluate import evaluate
    from lexprobe.benchmarks.registry import get
    from lexprobe.benchmarks.senserank.config import SenseConfig
    from lexprobe.benchmarks.senserank.console import format_report
    from lexprobe.data.semcor import SAMPLE_NOTE, is_sample
    from lexprobe.models import load_scorer

    bench = get("senserank")
    # SemCor found as `senserank eval` finds it: the data directory's, else the bundled sample (said in one line)
    config = bench.resolve_data(SenseConfig(corpus="semcor", max_instances=sample or DEFAULT_SAMPLE_INSTANCES, seed=0))
    sample_data = SAMPLE_NOTE if is_sample(config.path) else None
    out = Path(out_dir) / f"{stem}.json"
    scorer = load_scorer(model, prefer="token", **(options or {}))
    result = evaluate(bench, scorer, config, out, items=bench.load_items(config), model=model, items_from_config=True)
    assert result is not None  # `lexprobe run` is one process (rank 0)
    print(format_report(result))
    print(f"wrote {out} and {result['plot']} ({result['timing']['seconds']:.1f} s)")
    m = result["metrics"]["semcor"]["all"]
    return {
        "benchmark": "senserank",
        "task": "semcor-sample",
        "result": str(out),
        "sample_data": sample_data,
        "metrics": {
            "queries": m.get("n", 0),
            "map50_paper": m.get("pooled"),
            "map50_paper_random": result["baselines"]["random"]["semcor"]["all"].get("pooled"),
            "map50_paper_oracle": result["baselines"]["oracle"]["semcor"]["all"].get("pooled"),
            "map50_per_query_ap": m.get("map"),
        },
    }
