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
    from lexprobe.cli_common import add_protocol_arg

    p = subparsers.add_parser("senserank", help="CWE similarity ranking (query-by-example word-sense retrieval)")
    sub = p.add_subparsers(dest="senserank_command", metavar="COMMAND")
    sub.required = True

    e = sub.add_parser("eval", help="rank same-lemma database instances for every query; MAP@50 per bucket")
    e.add_argument("--corpus", choices=CORPUS_CHOICES, default="semcor", help="sense-annotated corpus")
    e.add_argument("--path", help="corpus file or folder (default: the data directory; `lexprobe data list`)")
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
    e.add_argument("--freq-edges", default="0,500,inf", help="frequency (l) bucket edges")
    e.add_argument("--bucket-by", choices=("sense", "lemma"), default="sense",
                   help="l = the query sense's frequency in D (the authors' code, Table 1; default) "
                        "or the lemma's (the paper's text)")
    e.add_argument("--rarity-edges", default="0,0.25,1", help="sense-proportion (r) bucket edges")
    e.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    e.add_argument("--dtype", default="float32", choices=("float32", "bfloat16", "float16"),
                   help="weights' floating-point type")
    e.add_argument("--batch-size", type=batch_size_arg, default=32, help="sentences per forward pass")
    e.add_argument("--seed", type=non_negative_int, default=0,
                   help="seed of the SemCor document split, of samples and of the random baseline")
    add_protocol_arg(e)
    e.add_argument("--out", required=True, help="result JSON (a .png of P@k curves is written next to it)")
    e.add_argument("--keep-embeddings", action="store_true",
                   help="keep the memory-mapped target vectors in OUT.embeddings/ after the run (reruns with "
                        "the same model then skip encoding); by default they are removed once the result is written")
    e.set_defaults(func=_cmd_eval)

    c = sub.add_parser("pdep-convert", help="make the paper's PDEP corpus (CoNLL-U, 80/20) from PDEP's prepcorp table")
    c.add_argument("--prepcorp", required=True, help="PDEP SQLite file with the prepcorp table (prepcorp.sqlite)")
    c.add_argument("--out", required=True, help="directory for pdep_train.conllu and pdep_test.conllu")
    c.add_argument("--seed", type=non_negative_int, default=0, help="seed of the 80/20 shuffle (the authors' was unseeded)")
    c.set_defaults(func=_cmd_pdep_convert)

    f = sub.add_parser("finetune", help="inoculation fine-tuning on STREUSLE 4.4 supersenses")
    f.add_argument("--model", default="all-MiniLM-L6-v2", help="encoder to fine-tune")
    f.add_argument("--instances", type=int, choices=FINETUNE_SIZES, required=True,
                   help="training instances, equal numbers of nouns, verbs and prepositions")
    f.add_argument("--out", required=True, help="folder for the fine-tuned encoder")
    f.add_argument("--path", help="STREUSLE 4.4 folder (default: the data directory, `lexprobe data fetch streusle`)")
    f.add_argument("--epochs", type=positive_int, default=40, help="most training epochs")
    f.add_argument("--patience", type=positive_int, default=3, help="epochs without dev improvement before stopping")
    f.add_argument("--lr", type=positive_float, default=2e-5, help="learning rate")
    f.add_argument("--batch-size", type=positive_int, default=16, help="training batch size")
    f.add_argument("--device", default="auto", help="auto, cpu, cuda or cuda:N")
    f.add_argument("--seed", type=non_negative_int, default=0, help="seed of the sample and the training")
    add_protocol_arg(f)
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
        bucket_by=args.bucket_by, protocol=args.protocol,
    )
    if args.layers:
        from lexprobe.benchmarks.senserank.layers import parse_layers

        if args.layer != -1:
            raise LexprobeError("--layer and --layers exclude each other; pass one of them")
        if args.protocol != "paper":  # the sweep reads the paper's corpus and tokenisation (layers.py)
            raise LexprobeError("--layers runs the paper recipe only; drop --protocol authors or use one --layer")
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


def _cmd_pdep_convert(args: argparse.Namespace) -> int:
    from lexprobe.data.pdep_rules import convert_prepcorp, read_prepcorp
    from lexprobe.errors import DataError

    if not Path(args.prepcorp).is_file():
        raise DataError(f"{args.prepcorp} not found; pass PDEP's prepcorp.sqlite with --prepcorp")
    train, test, counts = convert_prepcorp(read_prepcorp(args.prepcorp), seed=args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "pdep_train.conllu").write_text(train, encoding="utf-8")
    (out / "pdep_test.conllu").write_text(test, encoding="utf-8")
    print(", ".join(f"{reason}: {n}" for reason, n in counts.most_common()))
    print(f"wrote {out / 'pdep_train.conllu'} and {out / 'pdep_test.conllu'}")
    return 0


def _cmd_finetune(args: argparse.Namespace) -> int:
    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune

    check_output_dir(args.out, "--out")

    cfg = FinetuneConfig(
        model=args.model, instances=args.instances, out=args.out, path=args.path, epochs=args.epochs,
        patience=args.patience, lr=args.lr, batch_size=args.batch_size, device=args.device, seed=args.seed,
        protocol=args.protocol,
    )
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


def run_default(out_dir, model: str = "all-MiniLM-L6-v2", sample: int | None = None) -> dict:
    """SemCor sample for ``lexprobe run``: whole SemCor lemmas, drawn with seed 0, until the
    database plus queries reach ``sample`` instances (default DEFAULT_SAMPLE_INSTANCES)."""
    from lexprobe.benchmarks.senserank.evaluate import EvalConfig
    from lexprobe.data.semcor import default_archive, sample_archive

    path, sample_data = None, None
    if not default_archive().exists():  # no SemCor in the data directory: the sample shipped in the package
        path = str(sample_archive())
        sample_data = {"what": "the SemCor sample shipped with lexprobe (1,202 sentences, 12,747 instances)",
                       "get": "lexprobe data fetch semcor"}
        print("SemCor not in the data directory: ranking senses on the bundled SemCor sample")
    cfg = EvalConfig(corpus="semcor", path=path, model=model, max_instances=sample or DEFAULT_SAMPLE_INSTANCES, seed=0)
    out = Path(out_dir) / "senserank-semcor.json"
    result = run_and_save(cfg, out, progress=True)
    m = result["metrics"]
    return {
        "benchmark": "senserank",
        "task": "semcor-sample",
        "result": str(out),
        "sample_data": sample_data,
        "metrics": {
            "queries": m.get("queries", 0),
            "map50_paper": m.get("pooled"),
            "map50_paper_random": m.get("pooled_random"),
            "map50_paper_oracle": m.get("pooled_oracle"),
            "map50_per_query_ap": m.get("map"),
        },
    }
