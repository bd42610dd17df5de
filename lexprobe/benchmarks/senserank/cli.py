"""``lexprobe senserank eval|finetune`` and the sense-ranking part of ``lexprobe run``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from lexprobe.cli_common import batch_size_arg, non_negative_int, positive_float, positive_int
from lexprobe.errors import LexprobeError
from lexprobe.outputs import check_output_dir

CORPUS_CHOICES = ("semcor", "ontonotes", "pdep", "streusle")
FINETUNE_SIZES = (100, 250, 500, 1000, 2500)
#: ``lexprobe run`` sample: whole SemCor lemmas (seed 0) until D+Q reaches this many instances
DEFAULT_SAMPLE_INSTANCES = 4000


def register(subparsers) -> None:
    p = subparsers.add_parser("senserank", help="CWE similarity ranking (query-by-example word-sense retrieval)")
    sub = p.add_subparsers(dest="senserank_command", metavar="COMMAND")
    sub.required = True

    e = sub.add_parser("eval", help="rank same-lemma database instances for every query; MAP@50 per bucket")
    e.add_argument("--corpus", choices=CORPUS_CHOICES, default="semcor", help="sense-annotated corpus")
    e.add_argument("--path", help="corpus file or folder (needed for ontonotes and pdep; default: the data folder)")
    e.add_argument("--model", default="all-MiniLM-L6-v2",
                   help="Hugging Face name or local path, or `random` for the random baseline (default: bundled MiniLM)")
    e.add_argument("--layer", type=int, default=-1,
                   help="hidden_states index (0 = embeddings, -1 = last; the original code's layer L is L+1)")
    e.add_argument("--layers", help="layer sweep: `all` or a list like 0,4,8-12,-1 (one forward pass; "
                                    "metric per layer, with a plot)")
    e.add_argument("--pos", nargs="+", choices=("n", "v", "a", "r", "p"), help="keep only these coarse POS (default: all)")
    e.add_argument("--limit", type=positive_int, help="evaluate at most N queries (seeded sample; default: all)")
    e.add_argument("--max-instances", type=positive_int,
                   help="sample whole lemmas (seeded) until database + queries reach this size (default: all)")
    e.add_argument("--match-pos", action="store_true", help="restrict neighbours to the same lemma AND POS")
    e.add_argument("--min-sense-count", type=positive_int, default=5,
                   help="drop queries whose sense has fewer instances in the database")
    e.add_argument("--freq-edges", default="0,500,inf", help="lemma-frequency bucket edges")
    e.add_argument("--rarity-edges", default="0,0.25,1", help="sense-proportion bucket edges")
    e.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    e.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"),
                   help="weights' floating-point type")
    e.add_argument("--batch-size", type=batch_size_arg, default=32, help="sentences per forward pass")
    e.add_argument("--seed", type=non_negative_int, default=0,
                   help="seed of the SemCor document split, of samples and of the random baseline")
    e.add_argument("--out", required=True, help="result JSON (a .png of P@k curves is written next to it)")
    e.add_argument("--keep-embeddings", action="store_true",
                   help="keep the memory-mapped target vectors in OUT.embeddings/ after the run (reruns with "
                        "the same model then skip encoding); by default they are removed once the result is written")
    e.set_defaults(func=_cmd_eval)

    f = sub.add_parser("finetune", help="inoculation fine-tuning on STREUSLE 4.4 supersenses")
    f.add_argument("--model", default="all-MiniLM-L6-v2", help="encoder to fine-tune")
    f.add_argument("--instances", type=int, choices=FINETUNE_SIZES, required=True,
                   help="training instances, equal numbers of nouns, verbs and prepositions")
    f.add_argument("--out", required=True, help="folder for the fine-tuned encoder")
    f.add_argument("--path", help="STREUSLE 4.4 folder (default: the data folder's streusle-4.4)")
    f.add_argument("--epochs", type=positive_int, default=40, help="most training epochs")
    f.add_argument("--patience", type=positive_int, default=3, help="epochs without dev improvement before stopping")
    f.add_argument("--lr", type=positive_float, default=2e-5, help="learning rate")
    f.add_argument("--batch-size", type=positive_int, default=16, help="training batch size")
    f.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    f.add_argument("--seed", type=non_negative_int, default=0, help="seed of the sample and the training")
    f.set_defaults(func=_cmd_finetune)


def _edges(text: str, what: str):
    from lexprobe.metrics.retrieval import parse_edges

    try:
        return parse_edges(text)
    except ValueError as err:
        raise LexprobeError(f"--{what}: {err}") from None


def _cmd_eval(args: argparse.Namespace) -> int:
    from lexprobe.benchmarks.senserank.evaluate import EvalConfig

    cfg = EvalConfig(
        corpus=args.corpus, path=args.path, model=args.model, layer=args.layer,
        pos=tuple(args.pos) if args.pos else None, limit=args.limit, max_instances=args.max_instances,
        min_sense_count=args.min_sense_count, match_pos=args.match_pos,
        freq_edges=_edges(args.freq_edges, "freq-edges"), rarity_edges=_edges(args.rarity_edges, "rarity-edges"),
        seed=args.seed, batch_size=args.batch_size, device=args.device, dtype=args.dtype,
    )
    if args.layers:
        from lexprobe.benchmarks.senserank.layers import parse_layers

        if args.layer != -1:
            raise LexprobeError("--layer and --layers exclude each other; pass one of them")
        from lexprobe.outputs import check_output_file

        run_sweep_and_save(cfg, parse_layers(args.layers), check_output_file(args.out))  # before any work
        return 0
    run_and_save(cfg, Path(args.out), keep_embeddings=args.keep_embeddings)
    return 0


def run_sweep_and_save(cfg, layers, out: Path, progress: bool = True) -> dict:
    from lexprobe.benchmarks.senserank.layers import format_sweep, plot_sweep, sweep
    from lexprobe.reporting import write_json

    result = sweep(cfg, layers, progress=progress)
    result["plot"] = str(plot_sweep(result, out.with_suffix(".png")))
    write_json(out, result)
    print(format_sweep(result))
    print(f"wrote {out} and {result['plot']} ({result['timing']['total_s']:.1f} s)")
    return result


def run_and_save(cfg, out: Path, progress: bool = True, quiet: bool = False, keep_embeddings: bool = False) -> dict | None:
    """Evaluate and write ``out`` and its plot; under torchrun only rank 0 does (others get None)."""
    from lexprobe.benchmarks.senserank.evaluate import evaluate, format_report
    from lexprobe.distributed import context

    context()  # join torchrun's process group (and pin this rank's GPU) before loading the model
    result = evaluate(cfg, progress=progress, out=out, keep_embeddings=keep_embeddings)  # checks `out`, writes it
    if result is None:  # another rank than 0
        return None
    if not quiet:
        print(format_report(result))
        print(f"wrote {out} and {result['plot']} ({result['timing']['total_s']:.1f} s)")
    return result


def _cmd_finetune(args: argparse.Namespace) -> int:
    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune

    check_output_dir(args.out, "--out")

    cfg = FinetuneConfig(
        model=args.model, instances=args.instances, out=args.out, path=args.path, epochs=args.epochs,
        patience=args.patience, lr=args.lr, batch_size=args.batch_size, device=args.device, seed=args.seed,
    )
    summary = finetune(cfg)
    print(
        f"fine-tuned {args.model} on {summary['train_instances']} STREUSLE instances "
        f"({summary['epochs_run']} epochs, best dev accuracy {summary['best_dev_accuracy']:.3f} "
        f"at epoch {summary['best_epoch']}); encoder saved to {args.out}; evaluate it with "
        f"`lexprobe senserank eval --model {args.out} --out FILE.json`",
        file=sys.stdout,
    )
    return 0


def run_default(out_dir, model: str = "all-MiniLM-L6-v2", sample: int | None = None) -> dict:
    """SemCor sample for ``lexprobe run``: whole SemCor lemmas, drawn with seed 0, until the
    database plus queries reach ``sample`` instances (default DEFAULT_SAMPLE_INSTANCES)."""
    from lexprobe.benchmarks.senserank.evaluate import EvalConfig

    cfg = EvalConfig(corpus="semcor", model=model, max_instances=sample or DEFAULT_SAMPLE_INSTANCES, seed=0)
    out = Path(out_dir) / "senserank-semcor.json"
    result = run_and_save(cfg, out, progress=True)
    m = result["metrics"]
    return {
        "benchmark": "senserank",
        "task": "semcor-sample",
        "result": str(out),
        "metrics": {
            "queries": m.get("queries", 0),
            "map50_paper": m.get("pooled"),
            "map50_paper_random": m.get("pooled_random"),
            "map50_paper_oracle": m.get("pooled_oracle"),
            "map50_per_query_ap": m.get("map"),
        },
    }
