"""Evaluations run both in one process (the reference) and under torchrun (tests/test_distributed.py).

``python -m torch.distributed.run --standalone --nproc-per-node 2 tests/distributed_cases.py SPEC``
runs every case of SPEC (JSON: models, data folder, output folder, mode, device: cpu by default,
``cuda`` for this rank's GPU under nccl) on each rank;
rank 0 writes one result file per case, as the CLI does. The cases under ``interrupt`` are
stopped on every rank after its first unit and leave their resume logs and stores behind.
"""

from __future__ import annotations

import contextlib
import json
import sys
from pathlib import Path

WORDS = {
    "n": [("dog", "a domesticated carnivorous mammal that barks"), ("cat", "a small domesticated feline animal"),
          ("horse", "a large animal ridden by people"), ("cow", "a farm animal that gives milk"),
          ("table", "a piece of furniture with a flat top"), ("chair", "a seat for one person with a back"),
          ("bed", "a piece of furniture to sleep on"), ("lamp", "a device that gives light")],
    "v": [("run", "move fast on foot"), ("walk", "move on foot at a normal pace"), ("swim", "move through water"),
          ("sing", "produce musical sounds with the voice"), ("talk", "exchange thoughts with spoken words")],
}
KINDS = ("masked", "causal", "embedding", "static", "random")


def wdlmpro_groups():
    """One group per word: the word first, then the other words of its part of speech (rotated),
    so no two groups share a bundle and the split has several units to deal."""
    from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup

    groups = []
    for pos, words in WORDS.items():
        cands = [Candidate(f"{w}.{pos}.01", w, d) for w, d in words]
        for i in range(len(cands)):
            members = tuple(cands[i:] + cands[:i])[:4]
            groups.append(SynsetGroup(members[0].synset, pos, members[0].word, members))
    return groups


def coda_groups_file(folder: Path) -> Path:
    """Three hand-made groups plus one per WDLMPro POS list (each word's definition and a context)."""
    from tests.benchmarks.coda21.helpers import small_coda

    data = small_coda()
    for pos, words in WORDS.items():
        data[pos].append({
            "common_ancestor_info": {"relation": "parent", "ancestor_name": f"thing.{pos}.01"},
            "candidates": [{"synset_name": f"{w}.{pos}.01", "definition": d, "contexts": [f"the {w} is {d.split()[-1]} ."],
                            "words_in_contexts": [w]} for w, d in words[:4]],
        })
    path = folder / "coda.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def wsd_file(folder: Path) -> Path:
    """The hand-made WSD set of ``tests/data/test_wsd.py`` (five instances: a multi-word lemma, two gold keys)."""
    from tests.data.test_wsd import write_pair

    return write_pair(folder / "wsd", name="mini")


def sense_instances():
    from lexprobe.data.instances import SenseInstance

    contexts = {"hand_1": ["a {} signal", "the {} signal is a wink"], "hand_2": ["water and {}", "the dog and the {}"]}
    out, n = [], 0
    for label, templates in contexts.items():
        for rep in range(7):
            for t in templates:
                words = tuple((t.format("hand") + (" ." * (rep % 3))).split())
                out.append(SenseInstance(f"doc{n}", words, words.index("hand"), "hand", "n", label,
                                         "test" if rep == 0 else "train", "1"))
                n += 1
    for rep in range(6):  # a second lemma, so that lemmas are dealt to both ranks
        words = ("the", "bank", "of", "the", "river") + ("." * rep,) if rep else ("the", "bank", "of", "the", "river")
        out.append(SenseInstance(f"b{rep}", words, 1, "bank", "n", "bank_1", "test" if rep == 0 else "train", "1"))
    return out


def write_vec(path: Path) -> Path:
    import numpy as np

    vocab = sorted({t.lower() for ws in WORDS.values() for w, d in ws for t in (w + " " + d).split()}
                   | {"thing", "move", "fine", "idea", "material"})
    rng = np.random.default_rng(0)
    lines = [f"{len(vocab)} 4"] + [w + " " + " ".join(f"{x:.4f}" for x in rng.normal(size=4)) for w in vocab]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def model_for(kind: str, models: dict) -> tuple[str, str]:
    return {"masked": (models["bert"], "masked"), "causal": (models["gpt2"], "causal"),
            "embedding": (models["bert"], "embedding"), "static": (models["vec"], "static"),
            "random": ("random", "random")}[kind]


def run_case(name: str, spec: dict, fail_after: int | None = None):
    """Evaluate one case; returns the result (rank 0) or None (other ranks). Writes ``<out>/<name>.json``."""
    from lexprobe.reporting import write_json

    out = Path(spec["out"]) / f"{name}.json" if spec.get("out") else None
    device = spec.get("device", "cpu")
    bench, kind = name.split("-", 1)
    if bench == "senserank":
        from lexprobe.benchmarks.senserank import similarity as se
        from lexprobe.models import load_scorer

        se.CHUNK = 3  # several store appends per rank
        embedder = load_scorer(spec["models"]["bert"], kind="token", device=device)
        if fail_after is not None:
            embedder.encode_jobs = _failing(embedder.encode_jobs, fail_after)
        from lexprobe.core.evaluate import evaluate
        from lexprobe.benchmarks.senserank.config import SenseConfig

        result = evaluate("senserank", embedder, SenseConfig(corpus="synthetic", k=10), out, items=sense_instances(),
                          progress=False)
    else:
        from lexprobe.models import load_scorer

        path, kind = model_for(kind, spec["models"])
        scorer = load_scorer(path, kind=kind, device=device, batch_size=4)
        if bench == "wdlmpro":
            from lexprobe.core.evaluate import evaluate
            from lexprobe.benchmarks.wdlmpro import likelihood as we
            from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig, WDLMProItems

            config = WDLMProConfig(chunk_size=2, **spec.get("wdlmpro_options", {}))
            with _patched(we, "instance_records", fail_after):
                result = evaluate("wdlmpro", scorer, config, out, items=WDLMProItems(wdlmpro_groups()), progress=False)
        else:
            from lexprobe.benchmarks.coda21 import likelihood as ce
            from lexprobe.benchmarks.coda21.config import CodaConfig
            from lexprobe.benchmarks.coda21.dataset import load_coda
            from lexprobe.core.evaluate import evaluate

            data = load_coda(spec["coda"])
            with _patched(ce, "match_matrices", fail_after):
                result = evaluate("coda21", scorer, CodaConfig(data=data.source, groups_per_chunk=1), out, items=data,
                                  progress=False)
    if result is not None and out is not None:  # evaluate wrote it; again without the timings
        result.pop("timing", None)
        write_json(out, result)
    return result


@contextlib.contextmanager
def _patched(module, name: str, fail_after: int | None):
    real = getattr(module, name)
    if fail_after is not None:
        setattr(module, name, _failing(real, fail_after))
    try:
        yield
    finally:
        setattr(module, name, real)


class Interrupted(BaseException):
    """Stands for Ctrl-C or a kill between two units: what is on disk is what a kill leaves."""


def _failing(fn, after: int):
    """``fn`` that is interrupted on call number ``after + 1``. Every rank must get more than
    ``after`` calls, so that all ranks stop before the next collective (as a killed job does)."""
    calls = [0]

    def wrapped(*args, **kwargs):
        calls[0] += 1
        if calls[0] > after:
            raise Interrupted
        return fn(*args, **kwargs)

    return wrapped


def main(spec_path: str) -> int:
    import lexprobe.api  # noqa: F401  (registers the shipped benchmarks, as a script does)
    from lexprobe.distributed import context

    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    context()  # join the process group and pin this rank's GPU before loading models, as the CLI does
    for name in spec["cases"]:
        run_case(name, spec)
    for name in spec.get("interrupt", []):  # outputs go to <out>/interrupted/
        try:
            run_case(name, dict(spec, out=str(Path(spec["out"]) / "interrupted")), fail_after=1)
        except Interrupted:
            pass
        else:
            raise SystemExit(f"{name} was not interrupted")
    for argv in spec.get("cli", []):
        from lexprobe.cli import main as cli_main

        code = cli_main(argv)
        if code:
            return code
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
