"""CoDA21: what the issue-18 choices of the two recipes move, measured on the models at hand.

    python scripts/coda21_fidelity_effects.py static --data CoDA-clean-hard.json [--model glove-6b-50d]
    python scripts/coda21_fidelity_effects.py pll-space --data CoDA-clean-hard.json --model MASKED_LM [--limit N]
    python scripts/coda21_fidelity_effects.py asking --data CoDA-clean-easy.json --model smollm2-135m-instruct-q4 --limit 20
    python scripts/coda21_fidelity_effects.py contexts --model MASKED_LM [--semcor ARCHIVE]

- ``static``: static vectors under ``paper`` (a text without vectors is the zero vector)
  and ``authors`` (such a group is skipped: their ``get_mean_emb`` raises), and under
  lexprobe's former tokenisation (regex tokens, lower-case fallback);
- ``pll-space``: a masked LM's accuracy with the paper's input and with the released
  code's (``scorers/pll.released_mlm_input``: RoBERTa's lone space token scored in every pair);
- ``asking``: the authors' evaluate_by_asking on the first N groups per POS: accuracy of
  each question and of their mean (first best permutation, as theirs), simple matching;
- ``contexts``: the CoDA21 builder's context choice with the mean of the word pieces'
  probabilities (footnote 4, now the default) against their mean log-probability: how many
  synsets (with more than one SemCor context) get another context.

``--model`` takes anything ``load_scorer`` does and the GGUF short names of
``scripts/gguf_models.py`` (de-quantised Q4 weights).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gguf_models import load_any  # noqa: E402

from lexprobe.benchmarks.coda21.dataset import load_coda  # noqa: E402
from lexprobe.benchmarks.coda21.config import CodaConfig  # noqa: E402
from lexprobe.api import evaluate  # noqa: E402  (registers the shipped benchmarks)
from lexprobe.metrics import alignment as al  # noqa: E402


def _acc(result, pos):
    m = result["metrics"]["alignment"].get(pos) or {}
    gone = sum(str(s["unit"]).startswith(pos + "/") for s in result["skipped"])
    acc = "-" if m.get("accuracy") is None else f"{m['accuracy']:.3f}"
    return f"{acc} ({m.get('n', 0)} groups, {gone} skipped)"


def cmd_static(args):
    data = load_coda(args.data)
    scorer = load_any(args.model or "glove-6b-50d")
    rows = []
    for label in ("paper", "authors"):
        r = evaluate("coda21", scorer, CodaConfig(data=data.source, recipe=label), items=data, progress=False)
        d = r["counts"]
        rows.append(f"{label:8s} noun {_acc(r, 'n')}, verb {_acc(r, 'v')}; {d['skipped_oov_tokens']:,} of "
                    f"{d['static_tokens']:,} tokens without vector, {d['zero_vector_texts']} of {d['static_texts']} "
                    "texts without any")
    rx = re.compile(r"\w+(?:[-']\w+)*|[^\w\s]", re.UNICODE)
    scorer.tokens = lambda text: [w if w in scorer.vectors else w.lower() for w in rx.findall(text)]
    r = evaluate("coda21", scorer, CodaConfig(data=data.source), items=data, progress=False)
    rows.append(f"before   noun {_acc(r, 'n')}, verb {_acc(r, 'v')} (regex tokens, lower-case fallback)")
    print(f"{scorer.name} on {args.data}\n" + "\n".join(rows))


def cmd_pll_space(args):
    import dataclasses

    from lexprobe.benchmarks.coda21.likelihood import group_matrix, group_record, group_requests
    from lexprobe.asking.engine import Engine
    from lexprobe.asking.requests import PseudoLogLikelihood

    data = load_coda(args.data)
    groups = [g for p in ("n", "v") for g in data.by_pos(p)[: args.limit]]
    scorer = load_any(args.model)
    engine = Engine(scorer)
    config = CodaConfig()  # the paper recipe; only the PLL input differs (the released one: released-mlm-input)
    out = {}
    for label, encoding in (("paper input", "text"), ("released input", "released-mlm-input")):
        per_group = [[dataclasses.replace(r, encoding=encoding) for r in group_requests(PseudoLogLikelihood, g, config)]
                     for g in groups]
        answers = iter(engine([r for rs in per_group for r in rs]))
        out[label] = [group_record(g, group_matrix(PseudoLogLikelihood, g, [next(answers) for _ in rs], config), config)
                      for g, rs in zip(groups, per_group)]
    moved = sum(a["assignment"] != b["assignment"] for a, b in zip(*out.values()))
    print(f"{scorer.name}, first {args.limit} groups per POS of {args.data}")
    for label, recs in out.items():
        cells = ", ".join(f"{p} {np.mean([r['accuracy'] for r in recs if r['pos'] == p]):.3f}" for p in ("n", "v"))
        print(f"{label:15s} accuracy {cells}")
    print(f"{moved} of {len(groups)} alignments change")


def cmd_asking(args):
    from lexprobe.benchmarks.coda21.ask import ask_matrices, pattern_scores

    data = load_coda(args.data)
    scorer = load_any(args.model)
    for pos in ("n", "v"):
        groups = data.by_pos(pos)[: args.limit]
        if not groups:
            continue
        start = time.perf_counter()
        mats = ask_matrices(scorer, groups)
        acc: dict[str, list[float]] = {}
        for g, m in zip(groups, mats):
            for name, scores in pattern_scores(m).items():
                acc.setdefault(name, []).append(al.accuracy(al.first_best_alignment(scores)))
                acc.setdefault(name + " (simple)", []).append(al.accuracy(al.simple_matching(scores)))
        chance = al.random_baseline([g.k for g in groups])
        cells = ", ".join(f"{k} {np.mean(v):.3f}" for k, v in acc.items())
        print(f"{scorer.name} {pos}, first {len(groups)} groups of {args.data}: {cells}; random {chance:.3f} "
              f"({time.perf_counter() - start:.0f} s)")


def cmd_contexts(args):
    from lexprobe.benchmarks.coda21.contexts import MaskedContextSelector, collect_contexts
    from lexprobe.data.semcor import iter_semcor_sentences, sample_archive
    from lexprobe.data.wordnet import load_wordnet

    scorer = load_any(args.model, kind="masked")
    contexts = collect_contexts(iter_semcor_sentences(args.semcor or sample_archive()), load_wordnet())
    several = {s: occ for s, occ in contexts.items() if len(occ) > 1}
    if args.limit:
        several = dict(sorted(several.items())[: args.limit])
    prob = MaskedContextSelector(scorer).select(several)
    log = MaskedContextSelector(scorer, average="log").select(several)
    multi = sum(len(scorer.tokenizer.tokenize(" " + prob[s].word)) > 1 for s in several)
    changed = sum(prob[s] != log[s] for s in several)
    print(f"{scorer.name}: {changed} of {len(several)} synsets with > 1 context get another context "
          f"({multi} chosen words are split into several pieces)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("what", choices=("static", "pll-space", "asking", "contexts"))
    ap.add_argument("--data")
    ap.add_argument("--model")
    ap.add_argument("--limit", type=int)
    ap.add_argument("--semcor")
    args = ap.parse_args()
    {"static": cmd_static, "pll-space": cmd_pll_space, "asking": cmd_asking, "contexts": cmd_contexts}[args.what](args)


if __name__ == "__main__":
    main()
