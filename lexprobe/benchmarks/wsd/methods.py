"""WSD's three methods: each turns instances into requests (``asking.requests``) and picks a sense.

- ``likelihood``: one ``Continuation`` per candidate — the sentence with the target marked and a cue
  (``--pattern``), then `` <definition>`` — reduced by the mean (default) or the sum of its tokens'
  log-probabilities (``--reduce``); the highest wins. Causal LMs in process, vLLM, completions endpoints.
- ``embedding``: cosine between the target's contextual vector (``TokenVector`` at ``--layer``) and each
  definition's (the mean of its token vectors at the same layer), or between the sentence's and each
  definition's text vectors (``Embed``: sentence encoders, static vectors): the classic gloss-similarity
  baseline.
- ``choose``: the numbered definitions as a question (``prompting``: every reading, position bias,
  ``--debias cyclic``), any of several gold senses right.

The random baseline model (``--model random``) answers the first two with seeded scores. An instance with one
sense is answered without asking (its only sense); one with none (a lemma WordNet lacks) is skipped with its
reason (``WsdItems.unscorable``): unanswered, counted, never asked.
Instances are the resumable units (``distributed.run_units`` under the job's key): an interrupted run resumes.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Optional, TypedDict

import numpy as np

from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Embed, RandomScores, TokenVector
from lexprobe.benchmarks.wsd.config import PATTERNS
from lexprobe.benchmarks.wsd.items import WsdItems, marked
from lexprobe.core.contract import Job, Method, Records
from lexprobe.prompting.method import ChooseMethod
from lexprobe.tasks import loop
from lexprobe.tasks.loop import Units
from lexprobe.validation import Rule


class _Unit(TypedDict):
    id: str
    set: str
    pos: str
    lemma: str
    word: str
    gold: list[str]
    candidates: list[str]


class WsdRecord(_Unit, total=False):
    """An instance's record as the resume log and the result keep it (``items.WsdItems.unit`` and the answer)."""

    sentence: str
    gold_definition: Optional[str]
    mfs: str
    mfs_rule: str
    scores: list[float]
    predicted: str
    predicted_definition: str
    correct: float
    truncated: int
    skipped: str


#: a record the likelihood and embedding methods log: answered (``correct``) or skipped with its reason, never
#: neither (a logged record of neither, written before that held, is recomputed rather than read back)
ScoredRecord = Annotated[WsdRecord, Rule(lambda r: ("correct" in r) != ("skipped" in r), "answered or skipped")]


def key_items(items: WsdItems) -> list:
    """What the resume key digests: every instance with its candidates' keys and definitions."""
    return [[i.id, i.lemma, i.pos, list(i.tokens), i.index, list(i.gold),
             [[s.key, s.definition] for s in items.senses[i.id]], items.mfs.get(i.id)] for i in items.instances]


class ScoredSenses(Method):
    """A score per candidate sense, highest wins: the likelihood and embedding methods' one loop."""

    #: request types a backend must serve, by alternative (the first one it serves is used)
    requests: ClassVar[tuple[tuple[type, ...], ...]]

    def run(self, job: Job) -> Records | None:
        items: WsdItems = job.items
        instances = items.instances
        kind = self.pick(job.engine, job.config)
        units = Units([i.id for i in instances], [len(items.senses[i.id]) or 1 for i in instances],
                      key_items(items), ScoredRecord, job.config.chunk_size)
        records = loop.run(job, units, lambda engine, indices: self.score(
            engine, kind, job.config, items, [instances[i] for i in indices]))
        if records is None:  # another rank than 0: rank 0 writes the result
            return None
        counts = {"skipped_too_long": sum("skipped" in r and bool(r["candidates"]) for r in records),
                  "truncated_contexts": sum(r.get("truncated", 0) for r in records),
                  "unanswered_without_senses": sum(not r["candidates"] for r in records),
                  "one_sense": sum(len(r["candidates"]) == 1 for r in records)}
        index = getattr(job.scorer, "layer_index", None)  # token vectors: the layer asked, not the loaded one
        read_at = ({"layer": job.config.layer, "hidden_states_index": index(job.config.layer)}
                   if kind == (TokenVector,) and index is not None else {})
        return Records(records, items=key_items(items), counts=counts, skipped=loop.left_out(records, lambda r: r["id"]),
                       tasks=["wsd"], resolved={"requests": {"asked": [k.__name__ for k in kind]}}, model=read_at,
                       sections=systems_sections(records, items))

    def pick(self, engine: Engine, config: Any) -> tuple[type, ...]:
        return engine.require(self.requests, f"wsd --method {self.name}")

    def score(self, engine: Engine, kind: tuple[type, ...], config: Any, items: WsdItems, chunk: list) -> list[dict]:
        """One record per instance: the candidates' scores and the sense picked."""
        per_instance = [self.requests_of(kind, config, items, inst) for inst in chunk]
        flat = [r for reqs in per_instance for r in reqs]
        fits = engine.fit(flat)
        out: list[dict] = []
        asked: list = []
        where: list[tuple[int, int, int]] = []
        start = 0
        for inst, reqs in zip(chunk, per_instance):
            record = items.unit(inst)
            mine, start = fits[start:start + len(reqs)], start + len(reqs)
            too_long = next((f.too_long for f in mine if f.too_long), None)
            unscorable = items.unscorable(inst)
            if unscorable:
                record["skipped"] = unscorable
            elif too_long:
                record["skipped"] = f"{too_long} (skipped: cutting a definition would change what is scored)"
            elif len(record["candidates"]) == 1:
                record.update(predicted=record["candidates"][0], correct=float(record["candidates"][0] in inst.gold),
                              predicted_definition=items.senses[inst.id][0].definition)
            else:
                record["truncated"] = sum(f.cut for f in mine)
                where.append((len(out), len(asked), len(reqs)))
                asked += reqs
            out.append(record)
        answers = engine(asked) if asked else []
        for r_index, first, n in where:
            record = out[r_index]
            scores = self.reduce(kind, config, answers[first:first + n])
            if scores is None:
                record["skipped"] = "the target's subwords were not found in its sentence (no vector)"
                record.pop("truncated", None)
                continue
            best = int(np.argmax(scores))
            record.update(scores=[round(float(s), 6) for s in scores], predicted=record["candidates"][best],
                          correct=float(record["candidates"][best] in record["gold"]),
                          predicted_definition=items.senses[record["id"]][best].definition)
            if not record["truncated"]:
                del record["truncated"]
        return out

    def requests_of(self, kind: tuple[type, ...], config: Any, items: WsdItems, inst: Any) -> list:
        raise NotImplementedError

    def reduce(self, kind: tuple[type, ...], config: Any, answers: list) -> np.ndarray | None:
        """The candidates' scores from their answers (None: the instance cannot be scored)."""
        raise NotImplementedError


class Likelihood(ScoredSenses):
    name = "likelihood"
    help = "log P(definition | sentence with the target marked) per sense (causal LMs)"
    requests = ((Continuation,), (RandomScores,))

    def requests_of(self, kind, config, items, inst):
        senses = items.senses[inst.id]
        if kind == (RandomScores,):
            return [] if len(senses) < 2 else [RandomScores(f"wsd:{inst.id}", len(senses))]
        if len(senses) < 2:
            return []
        context = PATTERNS[config.pattern].format(marked=marked(inst), word=inst.tokens[inst.index])
        return [Continuation(context, " " + s.definition) for s in senses]

    def reduce(self, kind, config, answers):
        if kind == (RandomScores,):
            return np.asarray(answers[0])
        return np.array([float(np.mean(lp) if config.reduce == "mean" else np.sum(lp)) for lp in answers])


class Embedding(ScoredSenses):
    name = "embedding"
    load_as = "token"  # an encoder's (or a decoder's) token vectors unless --kind says otherwise
    help = "cosine of the target's (or the sentence's) vector and each definition's (encoders, static vectors)"
    requests = ((TokenVector,), (Embed,), (RandomScores,))

    def pick(self, engine, config):
        wanted = {"token": ((TokenVector,),), "sentence": ((Embed,),)}.get(config.vector, self.requests)
        return engine.require(wanted, f"wsd --method embedding --vector {config.vector}")

    def check_backend(self, engine, config, what):
        self.pick(engine, config)

    def requests_of(self, kind, config, items, inst):
        senses = items.senses[inst.id]
        if len(senses) < 2:
            return []
        if kind == (RandomScores,):
            return [RandomScores(f"wsd:{inst.id}", len(senses))]
        if kind == (TokenVector,):
            layer = config.layer
            return ([TokenVector(tuple(inst.tokens), inst.index, layer)]
                    + [TokenVector((s.definition,), 0, layer) for s in senses])
        return [Embed(" ".join(inst.tokens))] + [Embed(s.definition) for s in senses]

    def reduce(self, kind, config, answers):
        if kind == (RandomScores,):
            return np.asarray(answers[0])
        target, definitions = answers[0], answers[1:]
        if target is None or any(d is None for d in definitions):
            return None
        return np.array([_cosine(target, d) for d in definitions])


def systems_sections(records: list[dict], items: WsdItems) -> dict:
    """The result's ``systems`` section (``systems.section``: the published systems on these instances, paired
    with the model), where the run has systems; else nothing (the result is what it was without them)."""
    if items.systems is None:
        return {}
    from lexprobe.benchmarks.wsd import results as res
    from lexprobe.benchmarks.wsd import systems

    predicted: dict[str, tuple[str, ...]] = {r["id"]: (r["predicted"],) for r in records
                                             if r.get("predicted") is not None}
    return {"systems": systems.section(records, {"model": res.unit_values(records)}, items.systems,
                                       {"model": predicted})}


def _cosine(a, b) -> float:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norm = np.linalg.norm(a) * np.linalg.norm(b)
    return float(a @ b / norm) if norm else 0.0


class Choose(ChooseMethod):
    """The numbered definitions of the instance's senses as a question (every sense shown by default); a unit is
    an instance, right when the chosen sense is one of its gold senses."""

    unit_field, answer_key = "id", "choice"

    def run(self, job):
        """The choose machinery's records, with the systems section where the run has systems: each reading's
        answers paired with each system's on the same instances."""
        out = super().run(job)
        if out is None or job.items.systems is None:
            return out
        from lexprobe.benchmarks.wsd import results as res
        from lexprobe.benchmarks.wsd import systems

        firsts = list({r["item"]: r for r in out.instances}.values())
        units = self.unit_values({"method": self.name, "instances": out.instances, "readings": out.readings})
        models = {reading: [res.unit(u.key, u.pos, u.values.get(f"{reading}.f1")) for u in units]
                  for reading in out.readings}
        out.sections["systems"] = systems.section(firsts, models, job.items.systems, model_breakdowns=True)
        return out

    def units(self, job):
        return [(inst.id, inst) for inst in job.items.instances]

    def key_items(self, job, units):
        return key_items(job.items)

    def tasks(self, job):
        return ["wsd"]

    def prompts(self, job, unit):
        from lexprobe.prompting.choice import prompts

        n = len(job.items.senses[unit.id])
        return prompts(min(n, job.config.choose.max_candidates), job.config.choose) if n > 1 else 1

    def items(self, job, units, t):
        from lexprobe.prompting.choice import presented
        from lexprobe.prompting.options import sample_candidates
        from lexprobe.prompting.templates import build_prompt, option_labels, option_lines

        options, seed, out = job.config.choose, job.config.seed, []
        for inst in units:
            base = {"item": inst.id, **job.items.unit(inst)}
            definitions = [s.definition for s in job.items.senses[inst.id]]
            gold = [i for i, k in enumerate(base["candidates"]) if k in inst.gold]
            if len(definitions) < 2:  # nothing to ask: the only sense, or none
                out.append({**base, "order": list(range(len(definitions))), "options": definitions,
                            "gold_position": 0, "gold_positions": gold, "unasked": True})
                continue
            shown = sample_candidates(len(definitions), options.max_candidates, seed, inst.id,
                                      keep=gold[0] if gold else None)
            for p, r, order in presented(shown, options, seed, inst.id):
                texts = [definitions[i] for i in order]
                question = t.wsd.format(sentence=marked(inst), word=inst.tokens[inst.index],
                                        options=option_lines(t, option_labels(len(order), t.labels), texts))
                at = [order.index(g) for g in gold if g in order]
                out.append({**base, "permutation": p, "order": order, "options": texts,
                            "gold_position": at[0] if at else -1, "gold_positions": at,
                            **({"rotation": r} if options.cyclic else {}),
                            "prompt": build_prompt(t, question, options.chat)})
        return out

    def score(self, job, engine, items, template):
        from lexprobe.prompting.choice import score_choices

        asked = [it for it in items if not it.get("unasked")]
        score_choices(engine, asked, job.config.choose, template)
        for it in items:
            gold = {it["order"][g] for g in it["gold_positions"]}
            if it.pop("unasked", False):  # answered without a question, in every reading asked
                answer = it["order"][0] if it["order"] else None
                for reading in job.config.choose.readings:
                    block = {"choice": answer, "correct": answer in gold, "failure": None, "unasked": True}
                    if reading == "generation":
                        block["text"] = ""
                    it[reading] = block
                    if reading == "generation":
                        it["generation_lenient"] = {k: v for k, v in block.items() if k != "text"}
                continue
            for reading in ("likelihood", "likelihood_cyclic", "generation", "generation_lenient"):
                if isinstance(it.get(reading), dict) and "choice" in it[reading]:
                    it[reading]["correct"] = it[reading]["choice"] in gold  # any gold sense is right
        return items

    def scores(self, reading):
        return {"f1": lambda answer: float(answer["correct"])}

    def gold_positions(self, record):
        return record["gold_positions"][:1] if record.get("gold_positions") else [record["gold_position"]]

    def random(self, asked):
        from lexprobe.prompting.choose import item_means
        from lexprobe.stats.bootstrap import mean_intervals

        def chance(r: dict) -> float:
            return len(r["gold_positions"]) / len(r["order"]) if r["order"] else 0.0

        values = [chance(r) for r in asked]
        return {"f1": float(np.mean(values)) if values else None, "n": len(asked),
                "ci": mean_intervals({"f1": item_means(asked, chance)})}

    def sections(self, bench, records, method, config):
        """The choose sections (``ChooseMethod``), with each reading's F1 as the framework counts it (an item no
        order of which was answered is unanswered: in R, not in P) and the three baselines on the asked
        instances: chance among the options shown, WordNet first sense, SemCor MFS."""
        from lexprobe.benchmarks.wsd import results as res
        from lexprobe.core.contract import Unit

        out = super().sections(bench, records, method, config)
        result = {"method": self.name, "instances": records.instances}
        units = self.unit_values(result)
        firsts = list({r["item"]: r for r in records.instances}.values())
        for name, members in res.slices(firsts, units).items():
            block = out["metrics"][res.TASK].get(name)
            if block is None:
                continue
            for reading in records.readings:
                mine = [Unit(u.key, u.task, u.pos, {"precision": u.values.get(f"{reading}.f1")}) for u in members]
                figures = res.aggregate([res.unit(u.key, u.pos, u.values["precision"]) for u in mine])
                for key in ("f1", "precision", "recall", "answered"):
                    block[f"{reading}.{key}"] = figures[key]
                block["ci"].update({f"{reading}.{k}": v for k, v in figures["ci"].items()})
        chance = [res.unit(r["id"], r["pos"], len(r["gold_positions"]) / len(r["order"]) if r["order"] else None)
                  for r in firsts]
        baselines = {**res.baseline_values(firsts), "random": chance}
        out["baselines"] = {name: {res.TASK: {s: res.aggregate(m) for s, m in res.slices(firsts, base).items()}}
                            for name, base in baselines.items()}
        out.update(records.sections)  # the systems section, where the run has systems (``run``)
        return out
