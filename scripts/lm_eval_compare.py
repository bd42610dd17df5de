#!/usr/bin/env python
"""lexprobe and lm-evaluation-harness on the same items: `lexprobe export lm-eval` tasks vs lexprobe's own run.

For a causal LM (default SmolLM2-135M-Instruct, the de-quantised GGUF folder lexprobe caches): WDLMPro W2D
and D2W on a seeded sample of groups per POS (the sample `wdlmpro eval --limit N --seed S` reads) and
CoDA21 on the first groups per POS of a variant, each scored by lexprobe (`evaluate`) and by lm-eval 0.4.13
(`simple_evaluate` on the exported folder, the model loaded by lm-eval's HFLM from the same folder, float32,
as `lm_eval --model hf --model_args pretrained=FOLDER,dtype=float32` does). Prints the figures side by side,
how many items agree, and the wall time of each, same machine, same process: lexprobe's `evaluate` with its
items loaded before the clock, lm-eval's `simple_evaluate` (its docs are read from the exported parquet
files inside it); model loads apart. D2W is also
scored by lexprobe's engine on whole words (what lm-eval's D2W task scores), CoDA21 also with
`--normalize mean` (what lm-eval cannot express): the documented differences, measured.

    python scripts/lm_eval_compare.py                               # SmolLM2, 50 groups/POS, CoDA21 clean-hard 10/POS
    python scripts/lm_eval_compare.py --wdlmpro-groups 200 --coda21-groups 0 --variant clean-easy
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.cli import main as lexprobe_main  # noqa: E402
from lexprobe.reporting import format_table  # noqa: E402
from tests.export.helpers import d2w_word_logprobs, lm_eval_scores, run_lm_eval  # noqa: E402

POS = {"n": "noun", "v": "verb"}


def _timed(fn):
    started = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - started


def _load(model: str, batch_size: int):
    from lm_eval.models.huggingface import HFLM

    from lexprobe.models.gguf import as_pretrained_dir
    from lexprobe.model_names import resolve_model_path
    from lexprobe.models import load_scorer

    scorer, lexprobe_load = _timed(lambda: load_scorer(model, kind="causal", device="cpu", batch_size=batch_size))
    folder = as_pretrained_dir(resolve_model_path(model))
    lm, lm_load = _timed(lambda: HFLM(pretrained=folder, dtype="float32", batch_size=batch_size, device="cpu"))
    print(f"model: {model} -> {folder}; load: lexprobe {lexprobe_load:.1f} s, lm-eval {lm_load:.1f} s")
    return scorer, lm



def wdlmpro(scorer, lm, groups: int, seed: int, work: Path) -> list[list]:
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems
    from lexprobe.benchmarks.wdlmpro.dataset import select_groups
    from lexprobe.metrics.ranking import gold_rank

    assert lexprobe_main(["export", "lm-eval", "wdlmpro", "--limit", str(groups), "--seed", str(seed),
                          "--out", str(work / "wdlmpro")]) == 0
    items = select_groups(None, "both", groups, seed)  # eval's items for these options, loaded before the clock
    ours, t_ours = _timed(lambda: evaluate("wdlmpro", scorer, WDLMProConfig(limit=groups, seed=seed), None,
                                           items=WDLMProItems(items), progress=False))
    (theirs, samples, t_theirs) = run_lm_eval(work / "wdlmpro", ["lexprobe_wdlmpro_w2d", "lexprobe_wdlmpro_d2w"], lm=lm)
    logps, t_whole = _timed(lambda: d2w_word_logprobs(scorer, items))
    whole = {("d2w", i): np.array([logps[(g.pos, c.word, g.definition)].sum() for c in g.candidates])
             for i, g in enumerate(items)}
    rows = []
    for task in ("w2d", "d2w"):
        records = {(r["target"]): r for r in ours["instances"] if r["task"] == task}
        agree = sum(gold_rank(lm_eval_scores(samples[f"lexprobe_wdlmpro_{task}_{POS[r['pos']]}"][t])) == r["gold_rank"]
                    for t, r in records.items())
        for slice_, name in (("n", f"lexprobe_wdlmpro_{task}_noun"), ("v", f"lexprobe_wdlmpro_{task}_verb"),
                             ("all", f"lexprobe_wdlmpro_{task}")):
            m = ours["metrics"][task][slice_]
            extra = ""
            if task == "d2w":
                ranks = [gold_rank(whole[("d2w", i)]) for i, g in enumerate(items) if slice_ in ("all", g.pos)]
                extra = f"{100 * np.mean([k == 1 for k in ranks]):.1f}"
            rows.append([f"WDLMPro {task.upper()} {slice_}", m["n"], f"{100 * m['p_at_1']:.1f}", extra,
                         f"{100 * theirs[name]['acc,none']:.1f}", f"{m['rank_score']:.4f}",
                         f"{theirs[name]['rank_score,none']:.4f}",
                         f"{agree}/{len(records)}" if slice_ == "all" else "",
                         f"{t_ours:.1f} / {t_theirs:.1f}" if (task, slice_) == ("w2d", "all") else
                         (f"(whole words: {t_whole:.1f})" if (task, slice_) == ("d2w", "all") else "")])
    return rows


def coda21(scorer, lm, groups: int, variant: str, work: Path) -> list[list]:
    from lexprobe.benchmarks.coda21.benchmark import CODA21
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate

    assert lexprobe_main(["export", "lm-eval", "coda21", "--data", variant, "--limit", str(groups),
                          "--out", str(work / "coda21")]) == 0
    config = CodaConfig(data=variant, limit=groups)
    items = CODA21.items.load(config)  # loaded before the clock
    ours, t_ours = _timed(lambda: evaluate("coda21", scorer, config, None, items=items, progress=False))
    mean = evaluate("coda21", scorer, CodaConfig(data=variant, limit=groups, normalize="mean"), None, items=items,
                    progress=False)
    group = f"lexprobe_coda21_{variant.replace('-', '_')}"
    theirs, samples, t_theirs = run_lm_eval(work / "coda21", [group], lm=lm)
    by_id = {i: s for task in samples.values() for i, s in task.items()}
    agree = sum(by_id[r["id"]]["acc"] == r["accuracy"] for r in ours["instances"])
    worst = max(float(np.abs(np.reshape(lm_eval_scores(by_id[r["id"]]), (r["k"], r["k"])) - r["scores"]).max())
                for r in ours["instances"])
    long = sum(len(scorer.tokenizer(" " + d, add_special_tokens=False)["input_ids"]) > 48
               for r in ours["instances"] for d in r["definitions"])
    print(f"CoDA21 {variant}: largest |lexprobe - lm-eval| log-likelihood {worst:.2e}; definitions over 48 tokens: "
          f"{long}; counts {ours['counts']}")
    rows = []
    for slice_, name in (("n", f"{group}_noun"), ("v", f"{group}_verb"), ("all", group)):
        m = ours["metrics"]["alignment"][slice_]
        rows.append([f"CoDA21 {variant} {slice_}", m["groups"] if "groups" in m else m.get("n"),
                     f"{100 * m['accuracy']:.1f}", f"{100 * mean['metrics']['alignment'][slice_]['accuracy']:.1f}",
                     f"{100 * theirs[name]['acc,none']:.1f}", f"{100 * m['simple_accuracy']:.1f}",
                     f"{100 * theirs[name]['simple_acc,none']:.1f}",
                     f"{agree}/{len(ours['instances'])}" if slice_ == "all" else "",
                     f"{t_ours:.1f} / {t_theirs:.1f}" if slice_ == "all" else ""])
    return rows


def wsd(scorer, lm, per_set: int, seed: int, work: Path) -> list[list]:
    """WSD on a seeded sample of each set of ALL: lm-eval's `acc` against lexprobe's F1 with `--reduce sum` (what
    lm-eval computes) and with lexprobe's default `--reduce mean` (what it cannot)."""
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wsd.benchmark import WSD
    from lexprobe.benchmarks.wsd.config import WsdConfig

    assert lexprobe_main(["export", "lm-eval", "wsd", "--limit", str(per_set), "--seed", str(seed),
                          "--out", str(work / "wsd")]) == 0
    config = WsdConfig(limit=per_set, seed=seed, reduce="sum")
    items = WSD.items.load(config)  # loaded before the clock
    ours, t_ours = _timed(lambda: evaluate("wsd", scorer, config, None, items=items, progress=False))
    mean = evaluate("wsd", scorer, WsdConfig(limit=per_set, seed=seed), None, items=items, progress=False)
    names = list(dict.fromkeys(i.set_name for i in items.instances))
    theirs, samples, t_theirs = run_lm_eval(work / "wsd", ["lexprobe_wsd"], lm=lm)
    by_id = {i: s for task in samples.values() for i, s in task.items()}
    agree = sum(by_id[r["id"]]["acc"] == r["correct"] for r in ours["instances"])
    rows = []
    for slice_ in (*names, "all"):
        task = "lexprobe_wsd" if slice_ == "all" else f"lexprobe_wsd_{slice_.lower()}"
        m = ours["metrics"]["wsd"][slice_]
        rows.append([f"WSD {slice_}", m["n"], f"{100 * m['f1']:.1f}", f"{100 * mean['metrics']['wsd'][slice_]['f1']:.1f}",
                     f"{100 * theirs[task]['acc,none']:.1f}", "", "",
                     f"{agree}/{len(ours['instances'])}" if slice_ == "all" else "",
                     f"{t_ours:.1f} / {t_theirs:.1f}" if slice_ == "all" else ""])
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="smollm2-135m-instruct")
    ap.add_argument("--wdlmpro-groups", type=int, default=50, help="seeded sample per POS (0: skip WDLMPro)")
    ap.add_argument("--coda21-groups", type=int, default=10, help="first groups per POS (0: skip CoDA21)")
    ap.add_argument("--variant", default="clean-hard")
    ap.add_argument("--wsd-per-set", type=int, default=0, help="seeded sample per set of ALL (0: skip WSD)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--batch-size", type=int, default=16)
    args = ap.parse_args()
    scorer, lm = _load(args.model, args.batch_size)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.wdlmpro_groups:
            rows += wdlmpro(scorer, lm, args.wdlmpro_groups, args.seed, Path(tmp))
        if args.coda21_groups:
            rows += coda21(scorer, lm, args.coda21_groups, args.variant, Path(tmp))
        if args.wsd_per_set:
            rows += wsd(scorer, lm, args.wsd_per_set, args.seed, Path(tmp))
    print(format_table(["", "items", "lexprobe %", "lexprobe alt. %", "lm-eval acc %", "lexprobe RS / simple",
                        "lm-eval RS / simple", "items agreeing", "seconds lexprobe / lm-eval"], rows,
                       title=f"{args.model}: lexprobe vs lm-eval 0.4.13 on the same items (alt.: D2W on whole words; "
                             "CoDA21 --normalize mean; WSD --reduce mean, lexprobe's default; WSD's lexprobe % is "
                             "--reduce sum)"))


if __name__ == "__main__":
    main()
