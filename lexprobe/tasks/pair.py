"""The pair task type: a target word in two texts — the same meaning in both, or not (word-in-context).

A benchmark of this type gives its items (``PairItems``: the pairs scored, and the declared split a decision
threshold is fitted on, never the scored one) and its phrasing (``PairPhrasing``: the yes/no question); the
task type owns the rest, the same for every such benchmark (after MTEB's ``AbsTaskPairClassification``: a task
is metadata on its type):

- methods, as data (``methods``): ``embedding`` — the cosine of the target's contextual vectors in the two texts
  (``TokenVector`` at the texts' own character spans, ``--layer``), or of the two texts' vectors
  (``Embed``: sentence encoders and static vectors; ``--vector`` says which, and the result records it);
  ``ask`` — a yes/no question, its score the log-odds log P(yes) - log P(no) of the answer words
  (``Continuation``; the chat template with ``--chat``). The random baseline model answers both with seeded
  scores. Every pair (scored or fitted on) is a resumable unit of the one loop (``tasks.loop``).
- a score becomes a decision by a threshold fitted on the declared split (``fit_threshold``: the one that
  maximises accuracy there; ``fitted`` in the result, with the split, its size and its accuracy); ``ask`` is
  also decided at log-odds 0 (``accuracy_zero``: what lm-eval's multiple choice does). ROC AUC needs no
  threshold (``auc``, with a bootstrap interval).
- results: accuracy per slice (a benchmark's ``group``, e.g. a language pair) and pooled, with intervals, by part
  of speech (``breakdowns``); baselines: random (exactly 1/2 per pair) and the majority label of the scored pairs.
- presentation: one table (console, report, Markdown); the items page's rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Callable, ClassVar, Optional, Sequence, TypedDict

import numpy as np

from lexprobe.asking.requests import Continuation, Embed, Message, RandomScores, TokenVector
from lexprobe.core.cli_common import non_negative_int, positive_int
from lexprobe.core.contract import Job, Method, Presentation, Records, Results, Unit, default_slices, mean_aggregate
from lexprobe.core.options import nested, option
from lexprobe.errors import DataError, LexprobeError
from lexprobe.prompting.choose_cli import ChooseOptions
from lexprobe.prompting.method import ChooseMethod
from lexprobe.tasks import loop

#: the task's name in results (``tasks``, ``metrics``)
TASK = "pair"
#: ``--vector``: what the embedding method compares (``word``: the two targets' words alone, no context: the control
#: that shows what context adds, and all a static vector can say)
VECTORS = ("auto", "token", "sentence", "word")
#: the unit metrics of every pair benchmark: (key, label); ``accuracy`` is the headline
UNIT_METRICS = (("accuracy", "accuracy"), ("accuracy_zero", "accuracy at log-odds 0"))
BINARY_METRICS = ("accuracy", "accuracy_zero")


@dataclass(frozen=True)
class Target:
    """A target word where its text has it: ``text[start:end]``, and any further ranges of it (``more``: a
    discontinuous target, a separable verb's particle)."""

    text: str
    start: int
    end: int
    more: tuple[tuple[int, int], ...] = ()

    @property
    def ranges(self) -> tuple[tuple[int, int], ...]:
        return ((self.start, self.end), *self.more)

    @property
    def word(self) -> str:
        return " ".join(self.text[a:b] for a, b in self.ranges)

    def marked(self, left: str = '"', right: str = '"') -> str:
        """The text with each range of the target between marks."""
        out, at = [], 0
        for a, b in sorted(self.ranges):
            out += [self.text[at:a], left, self.text[a:b], right]
            at = b
        return "".join(out + [self.text[at:]])


@dataclass(frozen=True)
class PairItem:
    """One pair: its id, the two targets, whether they mean the same (None: unknown), and what it is reported by:
    ``group`` (a slice: a language pair), ``pos`` (a breakdown), ``lemma``."""

    id: str
    first: Target
    second: Target
    same: Optional[bool]
    lemma: str = ""
    pos: str = ""
    group: str = "all"


@dataclass
class PairItems:
    """What a pair benchmark's ``Items.load`` gives: the pairs scored, and the sets of pairs thresholds are fitted on
    (``fit``: a declared split by its name, never the scored pairs; empty: no threshold is fitted), with which set
    decides each group (``fit_for``: group -> set; a group not named takes the only set)."""

    pairs: list[PairItem]
    fit: dict[str, list[PairItem]] = field(default_factory=dict)
    fit_for: dict[str, str] = field(default_factory=dict)

    def fit_set(self, group: str) -> str | None:
        """The name of the set ``group``'s threshold is fitted on (None: none)."""
        if group in self.fit_for:
            return self.fit_for[group]
        return next(iter(self.fit)) if len(self.fit) == 1 else None


@dataclass(frozen=True)
class PairPhrasing:
    """How a benchmark asks about a pair: ``question(pair)`` is the text before the answer (ending where the
    answer word follows), ``yes``/``no`` the answer words (scored after a space); ``choose``: the choose method's
    question (``{sentence1}``, ``{sentence2}``, ``{word}``, ``{options}``) and its two options, same and different."""

    question: Callable[[PairItem], str]
    yes: str = "Yes"
    no: str = "No"
    choose: str = ('Does the word "{word}" mean the same in these two sentences?\n1: {sentence1}\n2: {sentence2}\n'
                   "{options}\nReply with the number of the answer only.")
    options: tuple[str, str] = ("the same meaning", "different meanings")


@dataclass(frozen=True)
class PairOptions:
    """The options every pair benchmark's ``Config`` has (it subclasses this and adds its data options)."""

    method: str = option("embedding", "embedding: cosine of the target's vectors in the two texts (or of the texts' "
                         "vectors); ask: a yes/no question, scored by the log-odds of the answers (causal LMs); "
                         "choose: the two answers as options to choose from (causal LMs, chat APIs)",
                         choices=("embedding", "ask", "choose"))
    recipe: str = option("paper", "the task's protocol", choices=("paper",))
    limit: int | None = option(None, "a seeded sample of N pairs of each group (default: all)", type=positive_int)
    seed: int = option(0, "seed of the sample and of the random scorer", type=non_negative_int)
    vector: str = option("auto", "token: the target's contextual vectors (--layer); sentence: the texts' vectors; "
                         "word: the two words' vectors alone, without their sentences (a no-context control); "
                         "auto: token where the model gives token vectors (embedding)", choices=VECTORS,
                         method="embedding")
    layer: int = option(-1, "hidden_states index of the token vectors (0 = embeddings, -1 = last; embedding)",
                        type=int, method="embedding")
    ask_chat: bool = option(False, "put the question in the model's chat template (ask)", method="ask")
    chunk_size: int = option(64, "pairs per resumable chunk", type=positive_int, cli=False, key=False)
    choose: ChooseOptions = nested(ChooseOptions, "ask-to-choose prompting (--method choose; causal LMs and chat "
                                                  "APIs)", method="choose")


class PairRecord(TypedDict, total=False):
    """A pair's record as the resume log and the result keep it."""

    id: str
    split: str  #: "scored", or the name of the set fitted on
    group: str
    pos: str
    lemma: str
    same: Optional[bool]
    score: float
    skipped: str


# --- fitting ------------------------------------------------------------------------------------------------

def fit_threshold(scores: Sequence[float], same: Sequence[bool]) -> tuple[float, float]:
    """(threshold, accuracy): the decision ``score > threshold`` most often right on these pairs. Candidates are
    the midpoints between consecutive distinct scores and one below and above all of them; of equally good
    ones, the lowest."""
    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(same, dtype=bool)
    if not len(s):
        raise ValueError("no pairs to fit a threshold on")
    distinct = np.unique(s)
    candidates = np.concatenate([[distinct[0] - 1.0], (distinct[:-1] + distinct[1:]) / 2, [distinct[-1] + 1.0]])
    right = np.array([np.mean((s > t) == y) for t in candidates])
    best = int(np.argmax(right))
    return float(candidates[best]), float(right[best])


def roc_auc(scores: Sequence[float] | np.ndarray, same: Sequence[bool] | np.ndarray) -> float | None:
    """The probability that a same-meaning pair scores above a different-meaning one (ties count 1/2): ROC AUC as
    the Mann-Whitney statistic; None without both kinds of pair."""
    from scipy.stats import rankdata

    s = np.asarray(scores, dtype=np.float64)
    y = np.asarray(same, dtype=bool)
    n_pos, n_neg = int(y.sum()), int((~y).sum())
    if not n_pos or not n_neg:
        return None
    ranks = rankdata(s)
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def auc_interval(scores: Sequence[float], same: Sequence[bool], resamples: int = 1000,
                 seed: int = 0) -> list[float] | None:
    """Seeded percentile-bootstrap 95% interval of ``roc_auc`` (pairs resampled; a resample with one kind of pair
    only is left out)."""
    from lexprobe.stats.bootstrap import percentile_interval

    s, y = np.asarray(scores, dtype=np.float64), np.asarray(same, dtype=bool)
    if roc_auc(s, y) is None:
        return None
    rng = np.random.default_rng(seed)
    values = []
    for _ in range(resamples):
        idx = rng.integers(0, len(s), len(s))
        value = roc_auc(s[idx], y[idx])
        if value is not None:
            values.append(value)
    low, high = percentile_interval(np.asarray(values))
    return [float(low), float(high)]


# --- the methods --------------------------------------------------------------------------------------------

class PairMethod(Method):
    """A score per pair through the one loop, the threshold fitted on the declared split, records per pair."""

    #: whether a score of 0 is a decision boundary of its own (log-odds), reported as ``accuracy_zero``
    zero_threshold: ClassVar[bool] = False

    def __init__(self, phrasing: PairPhrasing):
        self.phrasing = phrasing

    def pick(self, engine: Any, config: Any) -> tuple[type, ...]:
        return engine.require(self.requests, f"--method {self.name}")

    def check_backend(self, engine: Any, config: Any, what: str) -> None:
        self.pick(engine, config)

    def requests_of(self, kind: tuple[type, ...], config: Any, pair: PairItem) -> list:
        raise NotImplementedError

    def reduce(self, kind: tuple[type, ...], answers: list, pair: PairItem) -> float | None:
        """The pair's score from its answers (None: it cannot be scored: a target without subwords)."""
        raise NotImplementedError

    def run(self, job: Job) -> Records | None:
        items: PairItems = job.items
        check_items(items)
        kind = self.pick(job.engine, job.config)
        asked = [(name, p) for name, pairs in items.fit.items() for p in pairs] + [("scored", p) for p in items.pairs]
        ids = [p.id if split == "scored" else f"{split}:{p.id}" for split, p in asked]
        units = loop.Units(ids, [len(p.first.text) + len(p.second.text) for _, p in asked], key_items(items),
                           PairRecord, job.config.chunk_size)
        records = loop.run(job, units, lambda engine, indices: self.score(
            engine, kind, job.config, [asked[i] for i in indices]), unit="pair")
        if records is None:  # another rank than 0: rank 0 writes the result
            return None
        scored = [r for r in records if r["split"] == "scored"]
        fitted = {"threshold": thresholds(items, records)} if items.fit else {}
        counts = {"skipped_pairs": sum("skipped" in r for r in scored),
                  "skipped_fit_pairs": sum("skipped" in r for r in records if r["split"] != "scored")}
        vector = "token" if kind == (TokenVector,) else "word" if job.config.vector == "word" else "sentence"
        resolved = {"requests": {"asked": [k.__name__ for k in kind],
                                 **({"vector": vector} if self.name == "embedding" and kind != (RandomScores,)
                                    else {})}}
        return Records([r for r in scored if "skipped" not in r], items=key_items(items), n_items=len(items.pairs),
                       counts=counts,
                       skipped=loop.left_out(scored, lambda r: r["id"]), tasks=[TASK], fitted=fitted,
                       resolved=resolved)

    def score(self, engine: Any, kind: tuple[type, ...], config: Any, chunk: list[tuple[str, PairItem]]) -> list[dict]:
        per_pair = [self.requests_of(kind, config, p) for _, p in chunk]
        flat = [r for reqs in per_pair for r in reqs]
        fits = engine.fit(flat)
        answers = iter(engine(flat) if flat else [])
        out, at = [], 0
        for (split, p), reqs in zip(chunk, per_pair):
            mine, at = fits[at:at + len(reqs)], at + len(reqs)
            got = [next(answers) for _ in reqs]
            record: dict = {"id": p.id, "split": split, "group": p.group, "pos": p.pos, "lemma": p.lemma,
                            "same": p.same}
            too_long = next((f.too_long for f in mine if f.too_long), None)
            value = None if too_long else self.reduce(kind, got, p)
            if too_long:
                record["skipped"] = f"{too_long} (skipped: cutting a text would change what is scored)"
            elif value is None:
                record["skipped"] = "a target's subwords were not found in its text (no vector)"
            else:
                record["score"] = round(float(value), 6)
            out.append(record)
        return out


class PairEmbedding(PairMethod):
    name = "embedding"
    load_as = "token"  # an encoder's (or a decoder's) token vectors unless --kind says otherwise
    help = "cosine of the target's vectors in the two texts (or of the texts' vectors)"
    requests = ((TokenVector,), (Embed,), (RandomScores,))

    def pick(self, engine: Any, config: Any) -> tuple[type, ...]:
        wanted = {"token": ((TokenVector,),), "sentence": ((Embed,),), "word": ((Embed,),)}.get(config.vector,
                                                                                              self.requests)
        return engine.require(wanted, f"--method embedding --vector {config.vector}")

    def requests_of(self, kind, config, pair):
        if kind == (RandomScores,):
            return [RandomScores(f"pair:{pair.id}", 1)]
        if kind == (TokenVector,):  # a vector per range of each target (one range for most)
            return [TokenVector.of_span(t.text, a, b, config.layer) for t in (pair.first, pair.second)
                    for a, b in t.ranges]
        if config.vector == "word":  # the targets' words alone: what is left without context
            return [Embed(pair.first.word), Embed(pair.second.word)]
        return [Embed(pair.first.text), Embed(pair.second.text)]

    def reduce(self, kind, answers, pair):
        if kind == (RandomScores,):
            return float(answers[0][0]) * 2 - 1  # a seeded "cosine" in [-1, 1)
        if any(a is None for a in answers):
            return None
        if kind == (TokenVector,):  # a target of several ranges: the mean of its ranges' vectors
            n = len(pair.first.ranges)
            return cosine(np.mean(answers[:n], axis=0), np.mean(answers[n:], axis=0))
        return cosine(answers[0], answers[1])


class PairAsk(PairMethod):
    name = "ask"
    help = "a yes/no question about the pair, scored by log P(yes) - log P(no) (causal LMs)"
    requests = ((Continuation,), (RandomScores,))
    zero_threshold = True

    def requests_of(self, kind, config, pair):
        if kind == (RandomScores,):
            return [RandomScores(f"pair:{pair.id}", 2)]
        context = self.prompt(pair, config.ask_chat)
        return [Continuation(context, " " + self.phrasing.yes), Continuation(context, " " + self.phrasing.no)]

    def prompt(self, pair: PairItem, chat: bool) -> Any:
        text = self.phrasing.question(pair)
        return (Message("user", text),) if chat else text

    def reduce(self, kind, answers, pair):
        if kind == (RandomScores,):
            return float(np.log(answers[0][0]) - np.log(answers[0][1]))
        return float(np.sum(answers[0]) - np.sum(answers[1]))


class PairChoose(ChooseMethod):
    """The two answers (``phrasing.options``: same, different) as options to choose from, on the choose machinery
    (label likelihood and generation, option orders, cyclic debiasing); a unit is a pair, right when the answer
    chosen is its gold one. No threshold: a choice is a decision."""

    unit_field, answer_key = "id", "choice"
    binary_metrics = ("valid", "accuracy")

    def __init__(self, phrasing: PairPhrasing, field: str):
        self.phrasing, self.field = phrasing, field

    def units(self, job):
        return [(p.id, p) for p in job.items.pairs]

    def key_items(self, job, units):
        return [dataclasses.asdict(p) for _, p in units]

    def tasks(self, job):
        return [TASK]

    def prompts(self, job, unit):
        from lexprobe.prompting.choice import prompts

        return prompts(2, job.config.choose)

    def items(self, job, units, t):
        from lexprobe.prompting.choice import presented
        from lexprobe.prompting.templates import build_prompt, option_labels, option_lines

        options, out = job.config.choose, []
        for p in units:
            gold = 0 if p.same else 1
            for k, r, order in presented([0, 1], options, job.config.seed, p.id):
                texts = [self.phrasing.options[i] for i in order]
                question = getattr(t, self.field).format(
                    sentence1=p.first.marked(), sentence2=p.second.marked(), word=p.first.word,
                    options=option_lines(t, option_labels(2, t.labels), texts))
                out.append({"item": p.id, "id": p.id, "pos": p.group, "lemma": p.lemma, "same": p.same,
                            "permutation": k, "order": order, "options": texts, "gold_position": order.index(gold),
                            **({"rotation": r} if options.cyclic else {}),
                            "prompt": build_prompt(t, question, options.chat)})
        return out

    def score(self, job, engine, items, template):
        from lexprobe.prompting.choice import score_choices

        return score_choices(engine, items, job.config.choose, template)

    def scores(self, reading):
        return {"accuracy": lambda answer: float(answer["correct"])}

    def gold_positions(self, record):
        return [record["gold_position"]]

    def random(self, asked):
        from lexprobe.prompting.choose import item_means
        from lexprobe.stats.bootstrap import mean_intervals

        return {"accuracy": 0.5 if asked else None, "n": len(asked),
                "ci": mean_intervals({"accuracy": item_means(asked, lambda r: 0.5)})}

    @property
    def presentation(self) -> Presentation:  # type: ignore[override]
        from lexprobe.prompting.readings import choose_presentation, choose_tables, item_rows

        def tables(results: list[dict]) -> list:
            from lexprobe.core.registry import get

            name = results[0]["benchmark"] if results else ""
            title = get(name).meta.title if name else ""
            return choose_tables(name, f"{title}: same meaning or not, asked to choose", [("", TASK, results)],
                                 ("accuracy", "accuracy"), "Chance (%)", "two options: same or different{debiased}",
                                 "; debiased: the cyclic orders' label likelihoods averaged")

        def row(record: dict, reading: str, text: str | None) -> dict:
            block = record.get(reading) or {}
            chosen = block.get("choice")
            return {"task": TASK, "item": record["id"], "lemma": record.get("lemma", ""),
                    "gold": "same" if record.get("same") else "different",
                    "said": "–" if chosen is None else ("same" if chosen == 0 else "different")
                    + (f" ({text})" if text else ""), "score": "", "ok": bool(block.get("correct"))}

        return choose_presentation(tables, lambda result: item_rows(result, row, TASK))


def methods(phrasing: PairPhrasing, field: str) -> dict[str, Method]:
    """The pair task type's methods, asking as ``phrasing`` says (``field``: the choose templates' field of the
    benchmark's question)."""
    return {m.name: m for m in (PairEmbedding(phrasing), PairAsk(phrasing), PairChoose(phrasing, field))}


def cosine(a: Any, b: Any) -> float:
    a, b = np.asarray(a, dtype=np.float64).ravel(), np.asarray(b, dtype=np.float64).ravel()
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / norm) if norm else 0.0


def check_items(items: PairItems) -> None:
    """One line for pairs that cannot make a result: none, an id twice, a gold label missing, a group no fitted
    set decides, or a pair both fitted on and scored (a threshold is never fitted on the pairs it decides)."""
    if not items.pairs:
        raise DataError("no pairs to evaluate; check --data and --limit")
    for what, pairs in (("scored", items.pairs), *((f"in {name}", fit) for name, fit in items.fit.items())):
        listed = [p.id for p in pairs]
        if len(set(listed)) < len(listed):
            twice = next(i for i in listed if listed.count(i) > 1)
            raise DataError(f"pair {twice!r} is {what} twice; each pair must appear once")
    every = [*items.pairs, *(p for fit in items.fit.values() for p in fit)]
    unlabelled = next((p.id for p in every if p.same is None), None)
    if unlabelled is not None:
        raise DataError(f"pair {unlabelled!r} has no gold label; give the gold file beside the data")
    if not items.fit:
        return
    undecided = sorted({p.group for p in items.pairs if items.fit_set(p.group) not in items.fit})
    if undecided:
        raise LexprobeError(f"no set to fit the threshold of group {undecided[0]!r} on (sets: {', '.join(items.fit)})")
    content, ids = {_content(p) for p in items.pairs}, {p.id for p in items.pairs}
    for name, fit in items.fit.items():
        shared = [p.id for p in fit if _content(p) in content or p.id in ids]
        if shared:
            raise LexprobeError(f"{len(shared)} pair(s) of the split the threshold is fitted on ({name}) are also "
                                f"scored (e.g. {shared[0]!r}): a threshold is never fitted on the pairs it decides; "
                                "fit on another split")


def _content(p: PairItem) -> tuple:
    return (p.first, p.second)


def key_items(items: PairItems) -> list:
    """What the resume key digests: every pair scored and fitted on, as plain data, and which set decides which
    group."""
    return [["scored", [dataclasses.asdict(p) for p in items.pairs]],
            *([name, [dataclasses.asdict(p) for p in fit]] for name, fit in items.fit.items()),
            ["fit_for", {g: items.fit_set(g) for g in dict.fromkeys(p.group for p in items.pairs)}]]


def thresholds(items: PairItems, records: Sequence[dict]) -> dict:
    """The result's ``fitted.threshold``: each set's threshold (``fit_threshold`` on its scored pairs) with its size
    and accuracy there, and the set that decides each group."""
    sets = {}
    for name in items.fit:
        mine = [r for r in records if r["split"] == name and "skipped" not in r]
        if not mine:
            raise DataError(f"no pair of {name} could be scored: no threshold to fit")
        value, accuracy = fit_threshold([r["score"] for r in mine], [bool(r["same"]) for r in mine])
        sets[name] = {"value": value, "n": len(mine), "accuracy": accuracy}
    groups = {g: items.fit_set(g) for g in dict.fromkeys(p.group for p in items.pairs)}
    return {"rule": "same meaning when score > value", "sets": sets, "groups": groups}


# --- results ------------------------------------------------------------------------------------------------

def _threshold(result: dict, group: str) -> float | None:
    """The fitted threshold that decides ``group`` (None: none was fitted)."""
    found = (result.get("fitted") or {}).get("threshold") or {}
    name = (found.get("groups") or {}).get(group)
    return ((found.get("sets") or {}).get(name) or {}).get("value")


def _zero(result: dict) -> bool:
    return result.get("method") == PairAsk.name


def unit_values(result: dict) -> list[Unit]:
    """Per pair: right at the fitted threshold of its group (None without one) and, for log-odds, at 0."""
    zero = _zero(result)
    out = []
    for r in result["instances"]:
        t = _threshold(result, r["group"])
        values: dict[str, float | None] = {"accuracy": None if t is None else float((r["score"] > t) == r["same"])}
        if zero:
            values["accuracy_zero"] = float((r["score"] > 0) == r["same"])
        out.append(Unit(r["id"], TASK, r["group"], values))
    return out


def baseline_values(result: dict) -> dict[str, list[Unit]]:
    """Random: exactly 1/2 per pair (a fair coin's expectation); majority: the more frequent label of the scored
    pairs (the different-meaning label on a tie) said of every pair."""
    records = result["instances"]
    same = sum(bool(r["same"]) for r in records)
    majority = same > len(records) - same

    def each(name: str, value: Callable[[dict], float]) -> list[Unit]:
        keys = ["accuracy", *(["accuracy_zero"] if _zero(result) else [])]
        return [Unit(f"{name}:{r['id']}", TASK, r["group"], {k: value(r) for k in keys}) for r in records]

    return {"random": each("random", lambda r: 0.5),
            "majority": each("majority", lambda r: float(bool(r["same"]) == majority))}


def aggregate(result: dict, task: str, slice: str, units: list[Unit]) -> dict:
    """A slice's means with intervals (``mean_aggregate``), and, for the model's pairs, its threshold-free ROC AUC
    with its interval (a baseline's units are keyed ``<baseline>:<pair>``: they have no scores)."""
    out = mean_aggregate(result, task, slice, units)
    by_id = {r["id"]: r for r in result.get("instances") or []}
    mine = [by_id[u.key] for u in units if u.key in by_id]
    if mine and len(mine) == len(units):
        scores, same = [r["score"] for r in mine], [bool(r["same"]) for r in mine]
        out["auc"] = roc_auc(scores, same)
        interval = auc_interval(scores, same)
        if interval is not None:
            out["ci"]["auc"] = interval
    return out


def breakdowns(result: dict) -> dict:
    """Accuracy by part of speech (each with its interval)."""
    units = unit_values(result)
    pos = {u.key: r["pos"] for u, r in zip(units, result["instances"])}
    by_pos: dict[str, list[Unit]] = {}
    for u in units:
        by_pos.setdefault(pos[u.key] or "?", []).append(u)
    return {TASK: {"pos": {p: mean_aggregate(result, TASK, p, us) for p, us in sorted(by_pos.items())}}}


RESULTS = Results(unit_values=unit_values, baseline_values=baseline_values, aggregate=aggregate,
                  breakdowns=breakdowns, slices=default_slices, instance_spec=lambda result: PairRecord)


# --- presentation ---------------------------------------------------------------------------------------------

def tables(results: list[dict]) -> list:
    """One table: a row per result (model, method), a column per group with the pooled accuracy last, AUC and the
    threshold with where it was fitted; random and majority rows under them."""
    from lexprobe.tables import Table, Text, cell, label, name_counts, vs_random

    groups = list(dict.fromkeys(g for r in results for g in (r["metrics"].get(TASK) or {}) if g != "all"))
    if len(groups) == 1:
        groups = []
    headers = ["Model", "method", *[f"{g} acc. (%)" for g in groups], "accuracy (%)", "AUC (%)", "threshold",
               "n"]
    from lexprobe.core.registry import get

    bench = results[0]["benchmark"] if results else ""
    table = Table(bench, f"{get(bench).meta.title if bench else ''}: same meaning or not", headers,
                  note="accuracy at the threshold fitted on the split named (log-odds also at 0: ask); AUC needs "
                       "no threshold; their 95% bootstrap intervals are in the report and the result file")
    names = name_counts(results)
    for r in results:
        metrics, random = r["metrics"].get(TASK) or {}, (r["baselines"].get("random") or {}).get(TASK) or {}
        fitted = (r.get("fitted") or {}).get("threshold")
        threshold = Text([f"{v['value']:.3f} on {name}" for name, v in fitted["sets"].items()]) if fitted else "–"
        for key, what in (("accuracy", r["method"]), *((("accuracy_zero", f"{r['method']} at 0"),)
                                                       if _zero(r) else ())):
            row = [label(r, names), what]
            row += [vs_random(cell(metrics.get(g), key), random.get(g), key) for g in groups]
            row += [vs_random(cell(metrics.get("all"), key), random.get("all"), key), cell(metrics.get("all"), "auc"),
                    threshold if key == "accuracy" else "0", (metrics.get("all") or {}).get("n")]
            table.rows.append(row)
    for base in ("random", "majority"):
        members = [r for r in results if base in r["baselines"]]
        if members:
            r = members[0]
            b = r["baselines"][base].get(TASK) or {}
            table.rows.append([base, "", *[cell(b.get(g), "accuracy") for g in groups], cell(b.get("all"), "accuracy"),
                               "", "", (b.get("all") or {}).get("n")])
    return [table]


def format_result(result: dict) -> str:
    from lexprobe.core.evaluate import counts_line
    from lexprobe.tables import to_text

    lines = [to_text(t, transpose=True) for t in tables([result])]  # a line per group: one run's table is wide
    counts = counts_line(result)
    return "\n".join(lines + ([counts] if counts else []))


def failure_rows(result: dict) -> list[dict]:
    """The items page's rows: each pair, decided at its group's fitted threshold (right or wrong)."""
    rows = []
    for r in result["instances"]:
        t = _threshold(result, r["group"])
        said = None if t is None else r["score"] > t
        rows.append({"task": TASK, "item": r["id"], "pos": r["group"], "lemma": r["lemma"],
                     "gold": "same" if r["same"] else "different",
                     "said": "–" if said is None else "same" if said else "different",
                     "score": f"{r['score']:.3f}", "ok": said is not None and said == r["same"]})
    return rows


PRESENTATION = Presentation(tables=tables, format_result=format_result, failure_rows=failure_rows,
                            failure_columns=(("pos", "group"), ("lemma", "lemma"), ("gold", "gold"),
                                             ("said", "said"), ("score", "score")),
                            failure_note="a failure: a pair decided wrongly at the fitted threshold")


# --- a benchmark of this type -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Protocol:
    """The one recipe of a benchmark that has no authors' variant: its task's protocol."""

    name: str = "paper"


def benchmark(name: str, title: str, help: str, Config: type, items: Any, phrasing: PairPhrasing, *,
              sources: Sequence[Any] = (), citation: str = "", languages: tuple[str, ...] = ("en",),
              **parts: Any) -> Any:
    """A pair benchmark: its name, title, one-line help, its ``Config`` (a ``PairOptions`` subclass with its data
    options), its ``items`` (``contract.Items``: ``load(config)`` gives ``PairItems``) and how it asks
    (``phrasing``); the methods, results, presentation and exports are the task type's. ``sources``
    (``core.exports.Source``: where the pairs come from, their licence), ``citation`` (BibTeX) and ``languages``
    are what its exports say; without sources it has none. ``parts``: any other part of the ``Benchmark`` record
    (``commands``, ``run``, ``meta`` fields as ``meta_<field>``)."""
    from collections import Counter
    from dataclasses import replace

    from lexprobe.core.contract import Benchmark, BenchmarkMeta, Sample

    if not (isinstance(Config, type) and issubclass(Config, PairOptions)):
        raise TypeError(f"{name}: a pair benchmark's Config subclasses tasks.pair.PairOptions")
    if items.sample is None:  # --limit N: N pairs of each group (the estimate's suggestion)
        items = replace(items, sample=Sample("limit", lambda config, loaded: list(
            Counter(p.group for p in loaded.pairs).values())))
    meta_fields = {k[len("meta_"):]: parts.pop(k) for k in list(parts) if k.startswith("meta_")}
    meta = BenchmarkMeta(name=name, title=title, help=help, unit="pair", tasks=(TASK,), main_score="accuracy",
                         unit_metrics=UNIT_METRICS, binary_metrics=BINARY_METRICS, **meta_fields)
    exports = export(name, title, Config, items.load, phrasing, help, citation, sources, languages) if sources else None
    from lexprobe.prompting.templates import TemplateField

    question = TemplateField(frozenset({"sentence1", "sentence2", "word", "options"}),
                             required=frozenset({"sentence1", "sentence2", "options"}),
                             texts={"default": phrasing.choose})
    return Benchmark(meta=meta, Config=Config, items=items, methods=methods(phrasing, name),
                     recipes={"paper": Protocol()}, results=RESULTS, presentation=PRESENTATION, exports=exports,
                     template_fields={name: question}, **parts)


# --- exports ------------------------------------------------------------------------------------------------

def row_format(name: str) -> Any:
    """The rows of a pair benchmark's export: one per pair, the scored ones and those a threshold is fitted on
    (``split``: ``scored``, or the fitted-on set's name), a part per split and group; ``label`` 1 for the same
    meaning, 0 for different; ``ranges1``/``ranges2``: further ranges of a discontinuous target (``"a-b,c-d"``); ``fit_set``: on a
    scored pair, the set its group's threshold is fitted on."""
    from lexprobe.data.exported import Int, RowFormat, RowRule, Text, Unique

    sentence, offset = Text(max_bytes=SENTENCE_BYTES), Int("int32", low=0)
    ranges = Text(blank=True, pattern=r"((\d+-\d+)(,\d+-\d+)*)?", what="a-b[,c-d] character ranges")
    return RowFormat(f"{name}-pairs/1", name, (
        ("id", Text()), ("split", Text()), ("group", Text()), ("lemma", Text(blank=True)), ("pos", Text(blank=True)),
        ("sentence1", sentence), ("start1", offset), ("end1", offset), ("ranges1", ranges),
        ("sentence2", sentence), ("start2", offset), ("end2", offset), ("ranges2", ranges),
        ("label", Int("int32", low=0, high=1)), ("fit_set", Text(blank=True))), key=("split", "group"),
        rules=tuple(RowRule(partial(_inside, k=k), f"a target range of sentence{k} is not inside it") for k in ("1", "2")),
        unique=(Unique("pair of its split", lambda row: (row["split"], row["id"])),))


#: at most this many bytes of UTF-8 in an exported sentence
SENTENCE_BYTES = 64 << 10


def _inside(row: dict, k: str) -> bool:
    return all(0 <= a < b <= len(row[f"sentence{k}"]) for a, b in _spans(row, k))


def _spans(row: dict, k: str) -> list[tuple[int, int]]:
    return [(row[f"start{k}"], row[f"end{k}"])] + [tuple(int(x) for x in r.split("-"))  # type: ignore[misc]
                                                    for r in row[f"ranges{k}"].split(",") if r]


def _row(p: PairItem, split: str, fit_set: str) -> dict:
    return {"id": p.id, "split": split, "group": p.group, "lemma": p.lemma, "pos": p.pos,
            "sentence1": p.first.text, "start1": p.first.start, "end1": p.first.end,
            "ranges1": _ranges(p.first.more), "sentence2": p.second.text, "start2": p.second.start,
            "end2": p.second.end, "ranges2": _ranges(p.second.more), "label": int(bool(p.same)),
            "fit_set": fit_set}


def _ranges(more: tuple[tuple[int, int], ...]) -> str:
    return ",".join(f"{a}-{b}" for a, b in more)


def _item(row: dict) -> PairItem:
    def target(k: str) -> Target:
        more = tuple(tuple(int(x) for x in r.split("-")) for r in row[f"ranges{k}"].split(",") if r)
        return Target(row[f"sentence{k}"], row[f"start{k}"], row[f"end{k}"], more)  # type: ignore[arg-type]

    return PairItem(row["id"], target("1"), target("2"), bool(row["label"]), row["lemma"], row["pos"], row["group"])


def read_export(path: Any, name: str) -> PairItems | None:
    """The pairs of an export of benchmark ``name`` (``lexprobe export hf``) at ``path``, as it wrote them: the
    scored ones and the sets fitted on; None when ``path`` is no export."""
    from lexprobe.data.exported import open_export

    parts = open_export(path, row_format(name))
    if parts is None:
        return None
    scored = [r for p in parts if p.key["split"] == "scored" for r in p.rows]
    fit: dict[str, list[PairItem]] = {}
    for p in parts:
        if p.key["split"] != "scored":
            fit.setdefault(p.key["split"], []).extend(_item(r) for r in p.rows)
    return PairItems([_item(r) for r in scored], fit, {r["group"]: r["fit_set"] for r in scored if r["fit_set"]})


def export(name: str, title: str, Config: type, load: Callable[[Any], PairItems], phrasing: PairPhrasing,
           summary: str, citation: str, sources: Sequence[Any], languages: tuple[str, ...] = ("en",)) -> Any:
    """A pair benchmark's export (``core.exports.BenchmarkExport``): its pairs as ``eval`` selects them with the
    same data options (a part per split and group), and one lm-eval task per group asking the benchmark's question
    with the answers as choices (``senses`` form: the first best answer, as ``ask`` decides at log-odds 0)."""
    from lexprobe.core.exports import BenchmarkExport, Configuration, LMEvalTask, PartRows, Selection

    def select(options: Any) -> Selection:
        given = {"data": options.data, "limit": options.limit, "seed": options.seed}
        fields = {f.name for f in dataclasses.fields(Config)}
        items = load(Config(**{k: v for k, v in given.items() if v is not None and k in fields}))
        check_items(items)
        parts = []
        for split, pairs in (("scored", items.pairs), *items.fit.items()):
            for group in dict.fromkeys(p.group for p in pairs):
                rows = [_row(p, split, (items.fit_set(group) or "") if split == "scored" else "")
                        for p in pairs if p.group == group]
                folder = "-".join("".join(c if c.isalnum() else "_" for c in x) for x in (split, group))
                parts.append(PartRows({"split": split, "group": group}, folder, rows))
        scored = [p.folder for p in parts if p.key["split"] == "scored"]
        configurations = [Configuration("default", tuple(scored), True)]
        if items.fit:
            configurations.append(Configuration("fit", tuple(p.folder for p in parts if p.folder not in scored)))
        sizes = ", ".join(f"{name} ({len(pairs)})" for name, pairs in items.fit.items()) or "no set"
        built = (f"The pairs `lexprobe {name} eval` scores with the same options ({len(items.pairs)}), and those "
                 f"its decision thresholds are fitted on (configuration `fit`): {sizes}.")
        return Selection(parts, configurations, list(sources), built, items=items)

    def lm_eval(selection: Selection) -> list:
        items: PairItems = selection.items
        tasks = []
        for group in dict.fromkeys(p.group for p in items.pairs):
            docs = [{"id": p.id, "pos": p.pos, "context": phrasing.question(p),
                     "continuations": [phrasing.no, phrasing.yes], "gold": int(bool(p.same)),
                     "golds": [int(bool(p.same))]} for p in items.pairs if p.group == group]
            suffix = "".join(c if c.isalnum() else "_" for c in group.lower())
            tasks.append(LMEvalTask(f"lexprobe_{name}_{suffix}", "senses", f"lexprobe_{name}", docs,
                                    f"{title}{'' if group == 'all' else ', ' + group}: same meaning or not"))
        return tasks

    notes = (f"- One task per group; a doc is a pair, its question the benchmark's (`--method ask`), its choices "
             f"`{phrasing.no}` and `{phrasing.yes}` after a space. `acc` is lexprobe's `accuracy_zero` of `--method "
             "ask` (the log-odds above 0; a tie says different), on the same prompts.\n"
             "- The fitted thresholds, the embedding method and ROC AUC stay in lexprobe.")
    return BenchmarkExport(benchmark=name, pretty_name=title, rows=row_format(name), summary=summary,
                           citation=citation, task_categories=("text-classification",), select=select,
                           lm_eval=lm_eval, lm_eval_notes=notes, languages=languages)
