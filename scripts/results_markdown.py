"""The Markdown tables of docs/results.md, drawn from the rows of ``results_rows.py``.

Why a script: the doc's figures are copied from result files by code, not by hand, so a rerun
regenerates the same tables and a typo cannot slip into a published number.
"""

from __future__ import annotations

LABEL = {"all-MiniLM-L6-v2": "MiniLM-L6-v2", "glove-6b-50d": "GloVe 6B 50-d",
         "smollm2-135m-instruct": "SmolLM2-135M-Instruct (Q4_1)", "gemma-3-270m": "Gemma-3-270M (Q4_K_M)",
         "random": "random scorer"}


def _model(row: dict) -> str:
    return LABEL.get(row["model"], row["model"])


def _slice(row: dict, task: str, pos: str) -> dict | None:
    for s in row["slices"]:
        if s["task"] == task and s["pos"] == pos:
            return s
    return None


def _pct(s: dict | None, metric: str, ci: bool = True) -> str:
    if not s or s["metrics"].get(metric) is None:
        return "–"
    v = 100 * s["metrics"][metric]
    lo_hi = s["ci"].get(metric)
    if ci and lo_hi:
        return f"{v:.1f} [{100 * lo_hi[0]:.1f}, {100 * lo_hi[1]:.1f}]"
    return f"{v:.1f}"


def _dec(s: dict | None, metric: str) -> str:
    """A figure without its interval, x100 (the rank score: lexprobe.tables.UNITS)."""
    return _pct(s, metric, ci=False)


def _method(row: dict) -> str:
    choose = (row.get("config") or {}).get("choose") or {}
    if row["method"] == "choose":
        return "choose, chat" if choose.get("chat") else "choose, plain prompt"
    if row["method"] == "likelihood" and row.get("kind") in ("embedding", "static"):
        return "cosine"
    if row["method"] == "likelihood" and row.get("kind") == "random":
        return "random scores"
    return row["method"]


def _sample(row: dict) -> str:
    limit = (row.get("config") or {}).get("limit")
    first = "first " if row["benchmark"] == "coda21" else ""  # CoDA21 --limit: the first N groups
    return "all" if limit is None else f"{first}{limit}/POS"


def wdlmpro(rows: list[dict]) -> str:
    out = ["| model | method | targets | W2D noun P@1 | RS | W2D verb P@1 | RS | D2W noun P@1 | RS | D2W verb P@1 | RS | random P@1 (W2D n / v, D2W n / v) | s |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["benchmark"] != "wdlmpro" or r["method"] != "likelihood":
            continue
        cells, rnd = [], []
        for task in ("w2d", "d2w"):
            for pos in ("n", "v"):
                s = _slice(r, task, pos)
                cells += [_pct(s, "p_at_1"), _dec(s, "rank_score")]
                rnd.append(f"{100 * s['random']['p_at_1']:.1f}" if s and s.get("random") else "–")
        n = "/".join(str((_slice(r, "w2d", p) or {}).get("n", "–")) for p in ("n", "v"))
        out.append(f"| {_model(r)} | {_method(r)} | {n} ({_sample(r)}) | " + " | ".join(cells)
                   + f" | {' / '.join(rnd)} | {r['seconds']:.0f} |")
    return "\n".join(out)


def _coda_file(data: str) -> str:
    """clean-easy, or a copy's path (CoDA-clean-easy.json) by the same name."""
    name = data.replace("\\", "/").rsplit("/", 1)[-1]
    name = name[:-5] if name.endswith(".json") else name
    return name[5:].lower() if name.lower().startswith("coda-") else name


def coda21(rows: list[dict]) -> str:
    files = ["clean-hard", "clean-easy", "noisy-hard", "noisy-easy"]
    by = {}
    for r in rows:
        if r["benchmark"] != "coda21":
            continue
        key = (_model(r), _method(r), _sample(r))
        name = _coda_file(r["config"]["data"])
        files += [] if name in files else [name]
        by.setdefault(key, {})[name] = r
    out = ["| model | method | groups | " + " | ".join(f"{f} N | {f} V" for f in files)
           + " | random (exact) on the same groups, N / V per file |",
           "|---|---|---|" + "---|" * (2 * len(files) + 1)]
    for (model, method, sample), per in by.items():
        cells = []
        for f in files:
            r = per.get(f)
            for pos in ("n", "v"):
                s = _slice(r, "alignment", pos) if r else None
                metric = "accuracy" if r is None or r["method"] != "choose" else "likelihood.accuracy"
                cells.append(_pct(s, metric) + (f" (n={s['n']})" if s and sample != "all" else ""))
        rnd = "; ".join(f"{f}: " + " / ".join(f"{100 * s['random']['accuracy']:.1f}" for s in (
            _slice(per[f], "alignment", p) for p in ("n", "v")) if s and s.get("random")) for f in files if f in per)
        out.append(f"| {model} | {method} | {sample} | " + " | ".join(cells) + f" | {rnd} |")
    return "\n".join(out)


def choose(rows: list[dict]) -> str:
    out = ["| model | prompt | benchmark / task | POS | n | label likelihood | generation strict: P@1 (parsed) | generation lenient: P@1 (parsed) | random | most chosen position: share vs gold share there (likelihood; strict; lenient) |",
           "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["method"] != "choose" or r["benchmark"] == "wsd":  # WSD's choose rows are in its own table (``wsd``)
            continue
        metric = "p_at_1" if r["benchmark"] == "wdlmpro" else "accuracy"
        for s in r["slices"]:
            if s["pos"] == "all":
                continue
            pb = s.get("position_bias") or {}
            bias = "; ".join(
                f"{pb[k]['most_chosen']} ({100 * pb[k]['most_chosen_share']:.0f}% vs {100 * pb[k]['gold_share_there']:.0f}%)"
                if k in pb and pb[k].get("most_chosen") is not None else "–"
                for k in ("likelihood", "generation", "generation_lenient"))
            rnd = s.get("random") or {}
            rv = rnd.get(metric, rnd.get(f"likelihood.{metric}"))
            out.append(
                f"| {_model(r)} | {'chat' if r['config']['choose']['chat'] else 'plain'} | {r['benchmark']} {s['task']} | {s['pos']} | {s['n']} | "
                f"{_pct(s, 'likelihood.' + metric)} | {_pct(s, 'generation.' + metric)} ({_pct(s, 'generation.valid', False)}) | "
                f"{_pct(s, 'generation_lenient.' + metric)} ({_pct(s, 'generation_lenient.valid', False)}) | "
                f"{'–' if rv is None else f'{100 * rv:.1f}'} | {bias} |")
    return "\n".join(out)


def senserank(rows: list[dict]) -> str:
    buckets = ("l<500 r<0.25", "l<500 0.25<=r<1", "l>=500 r<0.25", "l>=500 0.25<=r<1", "all")
    out = ["| model | corpus | queries | " + " | ".join(f"ℓ{b[1:]}" if b != "all" else "all" for b in buckets)
           + " | MAP (all) | s |", "|---|---|---|" + "---|" * (len(buckets) + 2)]
    refs = {}
    for r in rows:
        if r["benchmark"] != "senserank":
            continue
        task = r["slices"][0]["task"]
        cells = [_pct(_slice(r, task, b), "pooled") for b in buckets]
        n = (_slice(r, task, "all") or {}).get("n")
        out.append(f"| {_model(r)} | {task} | {n} | " + " | ".join(cells)
                   + f" | {_pct(_slice(r, task, 'all'), 'map')} | {r['seconds']:.0f} |")
        for name in ("random", "oracle"):
            vals = [(_slice(r, task, b) or {}).get(name, {}).get("pooled") for b in buckets]
            refs.setdefault((name, task, r["items_digest"], n), vals)
    for (name, task, digest, n), vals in refs.items():
        out.append(f"| *{name} baseline* (items {digest[:8]}) | {task} | {n} | "
                   + " | ".join("–" if v is None else f"{100 * v:.1f}" for v in vals) + " | | |")
    return "\n".join(out)


WSD_SETS = ("senseval2", "senseval3", "semeval2007", "semeval2013", "semeval2015")


def wsd(rows: list[dict]) -> str:
    """All-words WSD: F1 per set and on the concatenation with its interval, the WordNet-first-sense baseline on
    the same instances beside it (a choose run: its label-likelihood reading)."""
    out = ["| model | method | instances | SE2 | SE3 | SE07 | SE13 | SE15 | all | WordNet first sense | s |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["benchmark"] != "wsd":
            continue
        metric = "likelihood.f1" if r["method"] == "choose" else "f1"
        every = _slice(r, "wsd", "all") or {}
        first = (every.get("baselines") or {}).get("first_sense", {}).get("f1")
        asked = (r["config"].get("requests") or {}).get("asked") or []
        setting = r["method"] + {"TokenVector": ", token vectors", "Embed": ", text vectors"}.get(
            asked[0] if asked else "", "")
        out.append(f"| {_model(r)} | {setting} | {every.get('n')} | "
                   + " | ".join(_pct(_slice(r, "wsd", s), metric, ci=False) for s in WSD_SETS)
                   + f" | {_pct(every, metric)} | {'–' if first is None else f'{100 * first:.1f}'} | {r['seconds']:.0f} |")
    return "\n".join(out)


def tables(rows: list[dict]) -> str:
    return "\n\n".join(["## WDLMPro (likelihood)", wdlmpro(rows), "## CoDA21", coda21(rows),
                        "## Choose", choose(rows), "## Sense ranking", senserank(rows), "## WSD", wsd(rows)])
