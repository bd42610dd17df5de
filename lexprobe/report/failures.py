"""Per-item rows of the failure pages: what a model chose instead of the gold answer."""

from __future__ import annotations

from lexprobe.report.results import model_name, task_name

COLUMNS = {
    "wdlmpro": [("model", "Model"), ("task", "Task"), ("pos", "POS"), ("item", "Item"), ("gold", "Gold answer"),
                ("chosen", "Chosen instead"), ("score", "Gold rank")],
    "coda21": [("model", "Model"), ("task", "Data"), ("pos", "POS"), ("item", "Group"), ("score", "Accuracy"),
               ("details", "Alignment made (context → definition chosen)")],
    "senserank": [("model", "Model"), ("task", "Corpus"), ("pos", "POS"), ("item", "Query"), ("gold", "Query sense"),
                  ("chosen", "Senses of the nearest neighbours (✓ same sense)"), ("score", "AP@50")],
}


def failure_rows(results: list[dict]) -> list[dict]:
    rows = []
    for r in results:
        name = model_name(r)
        build = {"wdlmpro": _wdlmpro, "coda21": _coda21, "senserank": _senserank}[r["benchmark"]]
        for inst in r.get("instances") or []:
            row = build(inst, r)
            row.update(model=name, pos=inst.get("pos", ""))
            rows.append(row)
    return rows


def _wdlmpro(i: dict, r: dict) -> dict:
    rank, n = i.get("gold_rank"), i.get("n_candidates")
    ok = i.get("correct", rank == 1)
    gold_def = i.get("gold_definition") or i["target"]
    chosen_def = i.get("predicted_definition") or i.get("predicted", "")
    if i["task"] == "d2w":
        item, gold, chosen = gold_def, i.get("word", i["target"]), i.get("predicted_word") or i.get("predicted", "")
    else:
        item, gold, chosen = i.get("word", i["target"]), gold_def, chosen_def
    if ok:
        chosen = ""
    elif i.get("predicted"):
        chosen = f"{chosen} ({i['predicted']})"
    return {"task": i["task"], "item": item, "gold": f"{gold} ({i['target']})", "chosen": chosen, "ok": bool(ok),
            "score": "" if rank is None else f"{rank} of {n}"}


def _coda21(g: dict, r: dict) -> dict:
    contexts, definitions = g.get("contexts"), g.get("definitions")
    lines = []
    for c, d in g.get("predicted_pairs", []):
        mark = "✓" if c == d else "✗"
        if contexts and definitions:
            line = f"{mark} context {c + 1}: {contexts[c]}\n    → definition {d + 1}: {definitions[d]}"
            if c != d:
                line += f"\n    (gold: {definitions[c]})"
        else:
            synsets = g.get("synsets", [])
            line = f"{mark} context {c + 1} ({synsets[c] if c < len(synsets) else '?'}) → definition {d + 1}"
        lines.append(line)
    return {"task": task_name(r), "item": f"{g['id']} {g.get('ancestor', '')}".strip(), "ok": g["accuracy"] == 1,
            "score": f"{g['accuracy']:.2f} (k={g.get('k')})", "details": "\n".join(lines)}


def _senserank(q: dict, r: dict) -> dict:
    hits = q.get("hits", "")
    top = q.get("top", [])
    chosen = ", ".join(f"{'✓' if h == '1' else '✗'} {label}" for h, label in zip(hits, top))
    return {"task": str(r.get("task", "")), "item": f"{q.get('lemma', '')} ({q['id']})", "gold": q.get("label", ""),
            "chosen": chosen, "ok": hits[:1] == "1", "score": f"{q.get('ap', 0):.2f}"}
