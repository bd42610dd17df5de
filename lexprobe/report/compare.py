"""``lexprobe compare A.json B.json``: two runs paired item by item.

Runs are compared only on the same items: the run records' item digests must
match (and the item ids), else the comparison is refused with the reason. Each
metric of each task/POS slice gets A, B, the mean paired difference A - B with a
paired bootstrap interval, and an exact paired test (``lexprobe.stats.paired``).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from lexprobe.core.contract import binary_metrics
from lexprobe.core.registry import get
from lexprobe.core.result_schema import load as load_result
from lexprobe.core.result_schema import model_name
from lexprobe.errors import DataError
from lexprobe.prompting.readings import READINGS, label
from lexprobe.report.results import Unit, per_reading, unit_metrics, units
from lexprobe.run_record import INCIDENTAL_FIELDS, MODEL_FIELDS, SCORE_NEUTRAL_FIELDS
from lexprobe.stats.paired import paired_difference

#: config keys that name the model or a data location rather than how the numbers were made
_CONFIG_MODEL_KEYS = ("model", "embedder", "scorer", "data", "path")


def compare_files(path_a, path_b) -> dict:
    a, b = load_result(path_a), load_result(path_b)
    if a["benchmark"] != b["benchmark"]:
        raise DataError(f"{path_a} is a {a['benchmark']} result and {path_b} a {b['benchmark']} one; "
                        "compare two runs of the same benchmark")
    units_a, units_b = units(a), units(b)
    check_same_items(a, b, units_a, units_b)
    tasks_a, tasks_b = {u.task for u in units_a}, {u.task for u in units_b}
    notes = [] if tasks_a == tasks_b else [
        f"compared on the common task(s) {', '.join(sorted(tasks_a & tasks_b))} (A has {_tasks(units_a)}, B {_tasks(units_b)})"]
    metrics = metric_pairs(a, b)
    if per_reading(a) != per_reading(b):
        notes.append(f"A is a {_asked_as(a)} run and B a {_asked_as(b)} run: compared on the common metrics, the "
                     "single-reading figure against each reading's")
    rows = paired_rows(metrics, units_a, units_b, binary_metrics(get(a["benchmark"]), a))
    if not rows:  # every paired unit was skipped (or not answered) in one of the runs
        unit = get(a["benchmark"]).meta.unit
        raise DataError(f"no {unit} has a score in both {path_a} and {path_b} (every common {unit} was skipped or "
                        "left unanswered in one of them, e.g. as too long): nothing to compare; compare runs "
                        "that scored the same items")
    return {
        "notes": notes,
        "benchmark": a["benchmark"],
        "a": {"file": str(path_a), "model": model_name(a)},
        "b": {"file": str(path_b), "model": model_name(b)},
        "warnings": run_differences(a, b),
        "rows": rows,
    }


def check_same_items(a: dict, b: dict, units_a: list[Unit], units_b: list[Unit]) -> None:
    """Refuse (one line, exit 2) runs on different items."""
    what = get(a["benchmark"]).meta.unit + "s"
    digest_a = (a.get("run") or {}).get("items_digest")
    digest_b = (b.get("run") or {}).get("items_digest")
    tasks_a, tasks_b = {u.task for u in units_a}, {u.task for u in units_b}
    tasks = tasks_a & tasks_b  # a run of one task is comparable on that task
    if tasks_a != tasks_b and not tasks:
        raise DataError(f"the runs share no task ({_tasks(units_a)} vs {_tasks(units_b)})")
    keys_a = {u.key for u in units_a if u.task in tasks}
    keys_b = {u.key for u in units_b if u.task in tasks}
    if keys_a != keys_b:
        only_a, only_b = sorted(keys_a - keys_b), sorted(keys_b - keys_a)
        example = (only_a or only_b)[0]
        raise DataError(
            f"the runs are on different items: A has {len(keys_a)} {what}, B {len(keys_b)}; {len(only_a)} only in A, "
            f"{len(only_b)} only in B (e.g. {example}); evaluate both on the same data, sample and seed")
    if digest_a and digest_b and digest_a != digest_b:
        raise DataError(
            f"the runs have the same {len(keys_a)} {what} but different item contents (items digest "
            f"{digest_a[:12]} vs {digest_b[:12]}): the data changed between the runs; evaluate both on the same data")


def _tasks(us: list[Unit]) -> str:
    return ",".join(sorted({u.task for u in us}))


def run_differences(a: dict, b: dict) -> list[str]:
    """What, besides the model, differs between the two runs' records and configs and can change a score.

    Not the batch size, the process count (``run_record.SCORE_NEUTRAL_FIELDS``) or an option declared not to
    change scores (``option(key=False)``: not in the resume key); the backend and precision in one line
    (``serving_difference``)."""
    ra, rb = a.get("run") or {}, b.get("run") or {}
    notes = []
    if not ra or not rb:
        missing = " and ".join(x for x, r in (("A", ra), ("B", rb)) if not r)
        notes.append(f"{missing} has no run record: items were matched by id only")
    skip = set(MODEL_FIELDS) | set(INCIDENTAL_FIELDS) | set(SCORE_NEUTRAL_FIELDS) | {"items_digest", "git_dirty",
                                                                                    "backend", "dtype"}
    serving = serving_difference(a, b) if ra and rb else None
    if serving:
        notes.append(serving)
    for key in sorted(set(ra) & set(rb) - skip):
        # None: not applicable to that model (a random scorer has no device), so not a difference
        if ra[key] is not None and rb[key] is not None and ra[key] != rb[key]:
            notes.append(f"{key}: {ra[key]} vs {rb[key]}")
    ca, cb = a.get("config") or {}, b.get("config") or {}
    for key in sorted(set(ca) | set(cb)):
        if key in _CONFIG_MODEL_KEYS or key in ra or not _changes_scores(a, key):
            continue
        if not (_uses(a, key) and _uses(b, key)):  # another method's options: the method line says it
            continue
        va, vb = ca.get(key), cb.get(key)
        if isinstance(va, dict) and isinstance(vb, dict):  # an option group: name the options that differ
            notes += [f"config {key}.{sub}: {_versus(va.get(sub), vb.get(sub))}"
                      for sub in sorted(set(va) | set(vb)) if va.get(sub) != vb.get(sub)]
        elif va != vb:
            notes.append(f"config {key}: {_versus(va, vb)}")
    return notes


def _changes_scores(result: dict, key: str) -> bool:
    """Whether config ``key`` is declared to change scores (``option(key=...)``: part of the resume key)."""
    f = _declared(result, key)
    return f is None or f.key


def serving(result: dict) -> dict:
    """Where a result's model ran and at what precision, from its run record: ``{"where", "dtype", "weights"}``.

    In process: the loaded weights' dtype (``run.dtype``). Through an endpoint (``run.backend``): the precision
    the user declared (``backend.served_dtype``, ``--served-dtype``) or the server reported
    (``backend.server_reports.dtype``), else None: a server may downcast (vLLM serves float32 weights as bfloat16
    unless started with ``--dtype float32``). ``weights``: the model's folder or name, to tell the same weights."""
    run = result.get("run") or {}
    backend = run.get("backend")
    if not isinstance(backend, dict):
        return {"where": "in process", "dtype": run.get("dtype"), "weights": _weights(run.get("model"))}
    reports: dict = backend["server_reports"] if isinstance(backend.get("server_reports"), dict) else {}
    server = backend.get("server") or backend.get("backend") or "a server"
    where = f"served by {server}" + (f" at {backend['endpoint']}" if backend.get("endpoint") else "")
    dtype = backend.get("served_dtype") or reports.get("dtype")
    root = reports.get("root") or backend.get("model_root") or backend.get("model") or backend.get("served_model")
    return {"where": where, "dtype": dtype, "weights": _weights(root)}


def _weights(name) -> str | None:
    if not name:
        return None
    path = Path(str(name)).expanduser()
    return str(path.resolve()) if path.exists() else str(name)


def serving_difference(a: dict, b: dict) -> str | None:
    """One line when the runs ran through different backends or at different (or unknown served) precisions."""
    sa, sb = serving(a), serving(b)
    served_a, served_b = sa["where"].startswith("served"), sb["where"].startswith("served")
    if not served_a and not served_b and (sa["dtype"] is None or sb["dtype"] is None or sa["dtype"] == sb["dtype"]):
        return None  # in process both: no dtype is a model without one (random, a person), not a difference
    if served_a != served_b and (sb if served_a else sa)["dtype"] is None:
        return None  # an endpoint against the random baseline or a person
    if served_a and served_b and sa["dtype"] == sb["dtype"] and sa["dtype"] is not None:
        return None  # two endpoints serving at the same declared precision: the URL changes no score

    def said(s: dict) -> str:
        dtype = s["dtype"] or ("served precision not declared (--served-dtype)" if s["where"].startswith("served")
                               else "dtype unknown")
        return f"{s['where']}, {dtype}"

    same = sa["weights"] is not None and sa["weights"] == sb["weights"]
    return (f"{'the same weights ' if same else ''}through different backends or precisions: A {said(sa)}; "
            f"B {said(sb)}: precision changes scores (docs/backends.md); `lexprobe check-endpoint URL --against "
            "MODEL` measures an endpoint against the in-process model")


def _uses(result: dict, key: str) -> bool:
    """Whether the run's method uses config ``key``: a likelihood run records the choose options'
    defaults too (``option(method=...)`` says which method an option belongs to)."""
    f = _declared(result, key)
    return f is None or f.applies(result.get("method") or (result.get("config") or {}).get("method"))


def _declared(result: dict, key: str):
    """The declaration (``options.FieldSpec``) of config ``key`` of the result's benchmark; None: undeclared."""
    import dataclasses

    from lexprobe.core.options import field_named

    config_cls = getattr(get(result["benchmark"]), "Config", None)
    return field_named(config_cls, key) if isinstance(config_cls, type) and dataclasses.is_dataclass(config_cls) else None


def _versus(va, vb) -> str:
    """``A vs B``, each short; two long values that shorten alike say where they differ."""
    sa, sb = _short(va), _short(vb)
    if sa != sb:
        return f"{sa} vs {sb}"
    ta, tb = str(va), str(vb)
    at = next((i for i, (x, y) in enumerate(zip(ta, tb)) if x != y), min(len(ta), len(tb)))
    return f"{sa} vs the same up to character {at} ({_short(ta[at:at + 40])} vs {_short(tb[at:at + 40])})"


def _asked_as(r: dict) -> str:
    return f"{r['method']} ({r['recipe']})"


def metric_pairs(a: dict, b: dict) -> list[tuple[str, str, str]]:
    """(key in A's units, key in B's units, label) of every metric the two runs share.

    Two runs of one kind share all their metrics (a choose run's per reading). A likelihood
    (paper/authors) run and a choose run share the paper's metric: P@1 and RS against the
    label-likelihood reading, P@1 / accuracy also against the generation reading.
    """
    if per_reading(a) == per_reading(b):
        return [(key, key, name) for key, name in unit_metrics(a)]
    choose = unit_metrics(a if per_reading(a) else b)
    choose_keys = {key for key, _ in choose}
    pairs = []
    for key, name in unit_metrics(b if per_reading(a) else a):
        for reading in READINGS:
            other = f"{reading}.{key}"
            if other not in choose_keys:
                continue
            if per_reading(a):
                pairs.append((other, key, f"{name}: A {a['method']} {label(reading)} vs B {_asked_as(b)}"))
            else:
                pairs.append((key, other, f"{name}: A {_asked_as(a)} vs B {b['method']} {label(reading)}"))
    return pairs


def _short(value) -> str:
    """A config value in one short phrase (a choose template by its name)."""
    if isinstance(value, dict) and "name" in value:
        return f"{value['name']} (template)"
    text = str(value)
    return text if len(text) <= 80 else text[:77] + "..."


def paired_rows(metrics: list[tuple[str, str, str]], units_a: list[Unit], units_b: list[Unit],
                binary: frozenset[str] = frozenset()) -> list[dict]:
    """Each metric of each task/slice paired unit by unit; ``binary``: the metrics (by name, a reading's prefix
    aside) declared right-or-wrong per unit, tested with exact McNemar where every value is 0 or 1."""
    by_key_b = {u.key: u for u in units_b}
    slices: dict[tuple[str, str], list[tuple[Unit, Unit]]] = defaultdict(list)
    pos_of_task = defaultdict(set)
    for ua in units_a:
        pos_of_task[ua.task].add(ua.pos)
    for ua in units_a:
        ub = by_key_b.get(ua.key)
        if ub is None:
            continue
        slices[(ua.task, "all")].append((ua, ub))
        if len(pos_of_task[ua.task]) > 1:  # one POS only: its slice is "all"
            slices[(ua.task, ua.pos)].append((ua, ub))
    rows = []
    for (task, pos) in sorted(slices, key=lambda s: (s[0], s[1] == "all", s[1])):
        pairs = slices[(task, pos)]
        for key_a, key_b, metric in metrics:
            # None: a rank score that a person's single choice cannot give, a choose item skipped as too long
            both = [(ua.values.get(key_a), ub.values.get(key_b)) for ua, ub in pairs]
            kept = [(float(x), float(y)) for x, y in both if x is not None and y is not None]
            if not kept:
                continue
            va, vb = [x for x, _ in kept], [y for _, y in kept]
            # McNemar where every unit is right or wrong (a declared 0/1 metric; choose readings averaged over
            # several option orders are fractions and get the permutation test)
            right_or_wrong = key_a.rsplit(".", 1)[-1] in binary and all(v in (0.0, 1.0) for v in va + vb)
            r = paired_difference(va, vb, binary=right_or_wrong)
            rows.append({"task": task, "pos": pos, "metric": metric, **r.as_dict()})
            if len(kept) < len(pairs):
                rows[-1]["left_out"] = len(pairs) - len(kept)
    return rows


def format_comparison(c: dict) -> str:
    from lexprobe.reporting import format_p, format_table, wrap_text

    def pct(x):
        return f"{100 * x:.2f}"

    rows = [[r["task"], r["pos"], r["metric"], r["n"], pct(r["a"]), pct(r["b"]), pct(r["difference"]),
             f"[{pct(r['ci'][0])}, {pct(r['ci'][1])}]", r["test"], format_p(r["p_value"])] for r in c["rows"]]
    title = (f"{c['benchmark']}: A = {c['a']['model']} ({Path(c['a']['file']).name}), "
             f"B = {c['b']['model']} ({Path(c['b']['file']).name}); figures x100, difference = A - B")
    text = format_table(["task", "POS", "metric", "n", "A", "B", "A-B", "95% CI (paired bootstrap)", "test", "p"],
                        rows, title=title)
    unit = get(c["benchmark"]).meta.unit
    left_out = max((r.get("left_out", 0) for r in c["rows"]), default=0)
    notes = []
    if left_out:
        notes.append(f"up to {left_out} {unit}(s) per row left out: not answered in one of the runs (e.g. skipped as "
                     "too long)")
    mcnemar = sorted({r["metric"] for r in c["rows"] if "mcnemar" in str(r["test"]).lower()})
    notes.append(f"n = paired {unit}s; interval: paired bootstrap of the mean difference; p: two-sided, exact McNemar "
                 f"for {', '.join(mcnemar) or 'a right-or-wrong metric'} (each {unit} right or wrong), paired "
                 "permutation for scores (exact up to 16 differing units, else 10,000 seeded sign flips)")
    return text + "\n" + "\n".join(wrap_text(n) for n in notes)
