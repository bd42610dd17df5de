"""The three WSD baselines on the unified framework: F1 per set and part of speech, beside the paper's rows.

    python scripts/wsd_baselines.py [--data FRAMEWORK_DIR] [--semcor SEMCOR] [--json OUT]

Random (exact expectation), WordNet first sense and most frequent sense from SemCor (ties: WordNet's
order; lemmas SemCor never tags: WordNet first sense) on Senseval-2, Senseval-3, SemEval-2007/2013/2015
and ALL, by part of speech; then, on ALL, the breakdowns by number of senses and by whether the gold is
the WordNet first sense. Every baseline answers every instance, so P = R = F1 (F1 is printed, in %).
``--data`` defaults to the data directory's framework (``lexprobe data fetch wsd``), ``--semcor`` to its
SemCor (``lexprobe data fetch semcor``; without one the MFS rows are skipped). Timings go to the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

#: the paper's rows (Raganato et al. 2017; F1 %): WordNet first sense, and MFS from SemCor
PAPER = {"first": {"senseval2": 66.8, "senseval3": 66.2, "semeval2007": 55.2, "semeval2013": 63.0,
                   "semeval2015": 67.8, "ALL": 65.2},
         "mfs": {"senseval2": 65.6, "senseval3": 66.0, "semeval2007": 54.5, "semeval2013": 63.8,
                 "semeval2015": 67.1, "ALL": 64.8}}
TITLES = {"random": "random (expected)", "first": "WordNet first sense", "mfs": "MFS from SemCor"}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, help="the framework's folder (default: the data directory's)")
    parser.add_argument("--semcor", type=Path, help="SemCor (archive or folder; default: the data directory's)")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)

    from lexprobe.data.wsd import NAMES, POS_ORDER, SETS, SHORT, check_framework, default_root
    from lexprobe.data.wsd_senses import candidate_keys, outside_inventory, semcor_sense_counts, sense_inventory
    from lexprobe.metrics.wsd import Score, by_first_sense, by_sense_count, score, score_groups
    from lexprobe.metrics.wsd_baselines import (
        first_sense_answers,
        most_frequent_answers,
        random_credit,
        rule_counts,
    )

    timings: dict[str, float] = {}
    started = time.perf_counter()
    sets = check_framework(args.data or default_root())
    timings["read the framework (6 files + gold, checks)"] = time.perf_counter() - started

    started = time.perf_counter()
    inventory = sense_inventory(sets["ALL"])
    candidates = candidate_keys(inventory)
    timings["WordNet candidates of ALL's instances"] = time.perf_counter() - started
    missing = outside_inventory(sets["ALL"], inventory)

    counts = None
    started = time.perf_counter()
    try:
        counts = semcor_sense_counts(args.semcor)
    except Exception as err:  # noqa: BLE001 - a missing SemCor skips the MFS rows, saying why
        print(f"(MFS skipped: {err})")
    timings["SemCor sense counts"] = time.perf_counter() - started

    started = time.perf_counter()
    # ALL's instances carry every set's (ALL = the five concatenated, checked above): score ALL's ids
    instances = sets["ALL"]
    gold = {i.id: i.gold for i in instances}
    answers = {"first": first_sense_answers(candidates)}
    rules = {}
    if counts is not None:
        answers["mfs"], how = most_frequent_answers(candidates, counts)
        rules = rule_counts(how)
    pos_of = {i.id: i.pos for i in instances}

    def random_score(ids) -> Score:
        credits = [random_credit(gold[i], candidates[i]) for i in ids]
        return Score(sum(credits), sum(1 for i in ids if candidates[i]), len(ids))

    table: dict = {}
    for name in NAMES:
        ids = [i.id for i in instances if name == "ALL" or i.set_name == name]
        sub = {i: gold[i] for i in ids}
        row = {"random": {"all": random_score(ids)}}
        for pos in POS_ORDER:
            pos_ids = [i for i in ids if pos_of[i] == pos]
            if pos_ids:
                row["random"][pos] = random_score(pos_ids)
        for baseline, got in answers.items():
            row[baseline] = {"all": score(sub, got), **score_groups(sub, got, pos_of, POS_ORDER)}
        table[name] = row
    breakdowns = {b: {"senses": by_sense_count(gold, got, {i: len(c) for i, c in candidates.items()}),
                      "first sense": by_first_sense(gold, got, {i: c[0] for i, c in candidates.items()})}
                  for b, got in answers.items()}
    timings["baselines and breakdowns"] = time.perf_counter() - started

    def pct(s: Score | None) -> str:
        return f"{100 * s.f1:5.1f}" if s is not None else "    -"

    print(f"WSD baselines, F1 % (every baseline answers every instance: P = R = F1); "
          f"{len(missing)} of {len(instances):,} instances have no gold key among their WordNet candidates")
    for baseline in ("random", "first", "mfs"):
        if baseline != "random" and baseline not in answers:
            continue
        print(f"\n{TITLES[baseline]}")
        print(f"  {'set':<6} {'F1':>5} {'N':>5} {'V':>5} {'A':>5} {'R':>5}   n" +
              ("   paper" if baseline in PAPER else ""))
        for name in NAMES:
            row = table[name][baseline]
            n = len([i for i in instances if name == "ALL" or i.set_name == name])
            paper = f"   {PAPER[baseline][name]:5.1f}" if baseline in PAPER else ""
            print(f"  {SHORT[name]:<6} {pct(row['all'])} " + " ".join(pct(row.get(p)) for p in POS_ORDER)
                  + f" {n:>5}{paper}")
    if rules:
        print(f"\nMFS answers on ALL: {rules}")
    for baseline, parts in breakdowns.items():
        for what, groups in parts.items():
            cells = ", ".join(f"{g} {100 * s.f1:.1f} (n={s.total})" for g, s in groups.items())
            print(f"{TITLES[baseline]} on ALL by {what}: {cells}")
    print("\ntimings: " + "; ".join(f"{k} {v:.2f} s" for k, v in timings.items()))
    if args.json:
        out = {name: {b: {g: s.as_dict() for g, s in row[b].items()} for b in row} for name, row in table.items()}
        args.json.write_text(json.dumps({"sets": out, "sets_order": list(SETS) + ["ALL"], "mfs_rules": rules,
                                         "timings_s": timings}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
