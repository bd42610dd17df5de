"""``lexprobe senserank pdep-convert|finetune`` (``eval`` is derived from ``SenseConfig``, ``finetune``'s options
from ``FinetuneConfig``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lexprobe.benchmarks.senserank.config import FinetuneConfig
from lexprobe.core.cli_common import non_negative_int
from lexprobe.core.options import add_commands, option
from lexprobe.outputs import INPUT, OUTPUT_DIR, make_output_dir, output_lock

#: what ``pdep-convert`` writes into its --out folder
PDEP_FILES = ("pdep_train.conllu", "pdep_test.conllu")


@dataclass(frozen=True)
class PdepConvert:
    """``pdep-convert``'s options; the paths are declared: outputs.guard checks them (no input among the files
    written) before the command runs."""

    prepcorp: str = option(None, "PDEP SQLite file with the prepcorp table (prepcorp.sqlite)", required=True,
                           path=INPUT)
    out: str = option(None, "directory for pdep_train.conllu and pdep_test.conllu", required=True,
                      path=OUTPUT_DIR, writes=PDEP_FILES)
    seed: int = option(0, "seed of the 80/20 shuffle (the authors' was unseeded)", type=non_negative_int)


def register_commands(sub) -> None:
    add_commands(sub, {"pdep-convert": (PdepConvert, "make the paper's PDEP corpus (CoNLL-U, 80/20) from PDEP's "
                                                     "prepcorp table", _cmd_pdep_convert),
                       "finetune": (FinetuneConfig, "inoculation fine-tuning on STREUSLE 4.4 supersenses", _cmd_finetune)})


def _cmd_pdep_convert(args: PdepConvert) -> int:
    from lexprobe.data.pdep_rules import convert_prepcorp, read_prepcorp
    from lexprobe.errors import DataError
    from lexprobe.outputs import write_atomic

    if not Path(args.prepcorp).is_file():
        raise DataError(f"{args.prepcorp} not found; pass PDEP's prepcorp.sqlite with --prepcorp")
    train, test, counts = convert_prepcorp(read_prepcorp(args.prepcorp), seed=args.seed)
    out = make_output_dir(args.out, "--out")
    for name, text in zip(PDEP_FILES, (train, test)):
        write_atomic(out / name, text)
    print(", ".join(f"{reason}: {n}" for reason, n in counts.most_common()))
    print(f"wrote {out / 'pdep_train.conllu'} and {out / 'pdep_test.conllu'}")
    return 0


def _cmd_finetune(cfg: FinetuneConfig) -> int:
    from lexprobe.benchmarks.senserank.finetune import finetune

    make_output_dir(cfg.out, "--out")  # outputs.guard checked it; the folder's lock lives inside it
    with output_lock(cfg.out, folder=True):  # a second fine-tuning into --out stops here, before STREUSLE loads
        summary = finetune(cfg)
    if summary["best_dev_accuracy"] is None:
        kept = (f"last epoch kept, lowest eval-mode loss on the training data at epoch {summary['best_epoch']}; "
                f"the authors' script trains every --instances label on these 99 (33 per POS)")
    else:
        kept = f"best dev accuracy {summary['best_dev_accuracy']:.3f} at epoch {summary['best_epoch']}"
    print(f"fine-tuned {cfg.model} on {summary['train_instances']} STREUSLE instances ({summary['epochs_run']} "
          f"epochs, {kept}); encoder saved to {cfg.out}; evaluate it with "
          f"`lexprobe senserank eval --model {cfg.out} --out FILE.json`")
    return 0
