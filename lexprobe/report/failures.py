"""Per-item rows of the failure pages: what a model chose instead of the gold answer."""

from __future__ import annotations

from lexprobe.report.results import READINGS, is_choose, model_name, task_name

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
        if is_choose(r):
            rows += choose_rows(r, name)
            continue
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


# --- ask-to-choose results: one row per item, option order and reading -----------------

def choose_rows(r: dict, name: str) -> list[dict]:
    """Rows of a ``--protocol choose`` result; the model column names the reading, so it filters."""
    multi = (r.get("config") or {}).get("permutations", 1) > 1
    rows = []
    for inst in r.get("instances") or []:
        order = f" (order {inst.get('permutation', 0) + 1})" if multi else ""
        for reading, label in READINGS:
            if "skipped" in inst and reading == READINGS[0][0]:
                rows.append({"model": f"{name} [choose]", "pos": inst.get("pos", ""), "ok": False,
                             **_choose_skipped(inst, r, order)})
            if reading not in inst:
                continue
            build = _choose_wdlmpro if r["benchmark"] == "wdlmpro" else _choose_coda21
            row = build(inst, inst[reading], reading, r)
            row["item"] += order
            row.update(model=f"{name} [choose: {label}]", pos=inst.get("pos", ""))
            rows.append(row)
    return rows


def _choose_skipped(inst: dict, r: dict, order: str) -> dict:
    item = inst.get("word", inst["item"]) if r["benchmark"] == "wdlmpro" else inst["item"]
    task = inst.get("task", "") if r["benchmark"] == "wdlmpro" else task_name(r)
    return {"task": task, "item": f"{item}{order}", "gold": "", "chosen": f"not asked: {inst['skipped']}",
            "score": "skipped", "details": f"not asked: {inst['skipped']}"}


def _answered(answer: dict) -> str:
    text = answer.get("text", "")
    return f"answered {text!r}" + (f" — {answer['failure'].replace('_', ' ')}" if answer.get("failure") else "")


def _choose_wdlmpro(i: dict, answer: dict, reading: str, r: dict) -> dict:
    options = i.get("options") or []
    order = i["order"]

    def option(candidate: int | None) -> str:
        if candidate is None:
            return ""
        at = order.index(candidate)
        return f"option {at + 1}: {options[at]}" if at < len(options) else f"option {at + 1}"

    ok = bool(answer["correct"])
    if reading == "generation":
        chosen = _answered(answer) + ("" if answer.get("choice") is None else f" → {option(answer['choice'])}")
        score = "right" if ok else (answer.get("failure") or "wrong").replace("_", " ")
    else:
        chosen = "" if ok else option(answer.get("choice"))
        score = f"{answer['gold_rank']} of {len(order)}"
    item = i.get("word", "") if i["task"] == "w2d" else i.get("definition", f"the definition of {i['target']}")
    return {"task": i["task"], "item": item, "gold": f"{option(0)} ({i['target']})", "chosen": chosen, "ok": ok,
            "score": score}


def _choose_coda21(g: dict, answer: dict, reading: str, r: dict) -> dict:
    contexts, definitions = g.get("contexts"), g.get("definitions")
    lines = [_answered(answer)] if reading == "generation" else []
    for c, d in enumerate(answer.get("assignment") or []):
        mark = "✓" if c == d else "✗"
        if contexts and definitions:
            line = f"{mark} {contexts[c]}\n    → {definitions[d]}"
            if c != d:
                line += f"\n    (gold: {definitions[c]})"
        else:
            line = f"{mark} shown pair {c + 1} → definition of pair {d + 1}"
        lines.append(line)
    k = len(g.get("shown", [])) or g.get("k")
    return {"task": task_name(r), "item": g["item"], "ok": answer["accuracy"] == 1,
            "score": f"{answer['accuracy']:.2f} (k={k})", "details": "\n".join(lines)}
