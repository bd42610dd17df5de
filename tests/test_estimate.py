"""An estimate before long work (``lexprobe.estimate``): after a short probe a run says how long it will take here
and which ``--limit`` fits about 5 minutes; ``--estimate`` says it and stops, keeping what the probe scored.

The estimator's arithmetic is checked with a clock the test moves; the whole path (``eval --estimate`` through
``distributed.run_units``) with a random scorer that sleeps for each request, so the run's time is known
whatever the machine's load: the estimate of a run of 5,000 groups, scaled to a 1/50 sample, must be within 2x of
that sample's measured time (the real models' figures: ``scripts/bench_estimate.py``)."""

from __future__ import annotations

import json
import re
import time

import pytest

from lexprobe import estimate
from lexprobe.cli import main


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _watch(clock, **kwargs) -> estimate.Watch:
    return estimate.Watch(clock=clock, say=lambda line: None, **kwargs)


def test_the_estimate_extrapolates_the_probe_by_cost_and_finds_the_limit_that_fits():
    clock = Clock()
    watch = _watch(clock, probe=20.0)
    clock.now = 40.0  # loading took 40 s
    watch.describe("group", "--limit", [3000, 1000])
    assert watch.begin([2.0] * 4000)  # 8,000 cost units
    for _ in range(4):  # 4 batches of 25 units (50 cost): 1 s per 10 cost, the first slower (warming up)
        clock.now += 3.0
        watch.batch(25, 50.0, 9.0 if watch._batches == [] else 5.0)
    est = watch.estimate
    assert est is not None and est.measured == 100 and est.units == 4000 and est.before == 40.0
    # the first batch left out of the rate: 15 s for 150 cost -> the 7,800 cost left take 780 s
    assert est.units_seconds == pytest.approx(24.0 + 780.0) and est.total == pytest.approx(844.0)
    # --limit N keeps min(N, 3000) + min(N, 1000) of 4,000 units: 40 + (2N / 4000) * 804 <= 300 -> N <= 646
    assert est.fits == 640 and est.seconds_for((2 * 640) / 4000) <= 300
    assert est.line() == "lexprobe: estimate 14 min (100 of 4,000 groups: 24 s; loading 40 s); --limit 640: ~5 min"
    assert len(est.line()) <= 100


def test_a_resumed_run_counts_what_its_bar_counts_and_fits_a_sample_from_nothing_done():
    """The bar of a resumed run counts every unit, the done ones ticked: the line says the same total and how many
    were resumed; the time is the units left's, and ``--limit`` is fitted to a run from nothing done."""
    clock = Clock()
    watch = _watch(clock, probe=20.0)
    clock.now = 40.0
    watch.describe("group", "--limit", [3000, 1000])
    assert watch.begin([2.0] * 2000, resumed=2000)  # half of the 4,000 units done before: 4,000 cost left
    for _ in range(4):
        clock.now += 3.0
        watch.batch(25, 50.0, 9.0 if watch._batches == [] else 5.0)
    est = watch.estimate
    assert est is not None and est.units == 2000 and est.resumed == 2000
    # 1 s per 10 cost: the 3,800 cost left after the probe take 380 s
    assert est.units_seconds == pytest.approx(24.0 + 380.0) and est.total == pytest.approx(444.0)
    # a whole run from nothing: 4,000 units at the same rate, 808 s; 40 + (2N / 4000) * 808 <= 300 -> N <= 643
    assert est.seconds_for(1.0) == pytest.approx(40.0 + 808.0) and est.fits == 640
    assert est.line() == ("lexprobe: estimate 7 min (100 of 4,000 groups, 2,000 resumed: 24 s; loading 40 s);\n"
                          "  --limit 640: ~5 min")
    assert max(len(line) for line in est.line().splitlines()) <= 100


def test_a_short_run_says_nothing_and_a_later_stage_is_not_watched():
    said: list[str] = []
    clock = Clock()
    watch = estimate.Watch(clock=clock, say=said.append, probe=1.0)
    watch.begin([1.0] * 10)
    watch.batch(10, 10.0, 2.0)
    assert watch.estimate is not None and watch.estimate.finished and said == []
    assert not watch.begin([1.0] * 5)  # a second loop of the same run (another stage) is not re-estimated


def test_a_long_run_says_its_estimate_once_and_stop_raises():
    said: list[str] = []
    clock = Clock()
    watch = estimate.Watch(clock=clock, say=said.append, probe=1.0, announce=60.0)
    watch.begin([1.0] * 1000)
    for _ in range(3):
        watch.batch(10, 10.0, 1.0)
    assert len(said) == 1 and said[0] == "lexprobe: estimate 2 min (10 of 1,000 units: 1 s; loading 0 s)"
    stopping = estimate.Watch(clock=clock, say=said.append, probe=1.0, stop=True)
    stopping.begin([1.0] * 1000)
    with pytest.raises(estimate.EstimateReady) as ready:
        stopping.batch(10, 10.0, 1.0)
    assert ready.value.estimate.total == pytest.approx(100.0)


def test_the_limit_suggested_is_rounded_down_to_two_digits():
    assert [estimate._round_down(n) for n in (7, 64, 646, 9517, 123456)] == [7, 64, 640, 9500, 120000]


# --- the whole path: `eval --estimate`, then the sample it predicts, measured --------------------------------

DELAY = 0.0012  #: seconds a stand-in model takes per word of the texts it embeds (about 0.1 s per group)


class SlowEmbedder:
    """A model whose time is its texts' length, as a real model's is their tokens (the cost the units are dealt
    by: words + 1 per text without a tokenizer, ``distributed.token_counts``): a sleep, so the run's time does
    not depend on how busy the machine is."""

    name = kind = "slow-embedder"

    def describe(self):
        return {"name": self.name, "kind": self.kind}

    def embeddings(self, requests, progress=False):
        from tests.standins.embedding import EmbedOnly

        time.sleep(DELAY * sum(len(r.text.split()) + 1 for r in requests))
        return [EmbedOnly.vector(r.text) for r in requests]


@pytest.fixture()
def slow_model():
    from lexprobe.backends import Backend, register_backend, unregister_backend

    register_backend(Backend("slow", lambda reference, kind=None, **options: SlowEmbedder(),
                             lambda reference: reference == "slow-embedder", ("embedding",), offers="a test stand-in",
                             order=5))
    yield "slow-embedder"
    unregister_backend("slow")


@pytest.fixture()
def groups_file(tmp_path):
    """2,500 noun and 2,500 verb groups of WordNet targets (their depth bands are read), 4 candidates each."""
    from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup, write_jsonl
    from lexprobe.data.wordnet import load_wordnet

    wn = load_wordnet()
    groups = []
    for pos in ("n", "v"):
        for synset in list(wn.all_synsets(pos))[:2500]:
            word = synset.lemmas()[0].name().replace("_", " ")
            cands = (Candidate(synset.name(), word, synset.definition()),
                     *(Candidate(f"{synset.name()}-{j}", f"{word} {j}", f"{synset.definition()} ({j})")
                       for j in range(3)))
            groups.append(SynsetGroup(synset.name(), pos, word, cands))
    return write_jsonl(groups, tmp_path / "groups.jsonl")


def _seconds(text: str) -> float:
    number, unit = re.fullmatch(r"(\d+) (s|min)", text).groups()
    return float(number) * (60 if unit == "min" else 1)


def test_eval_estimate_is_within_2x_of_a_measured_1_in_50_sample(slow_model, groups_file, tmp_path, capsys,
                                                                 monkeypatch):
    monkeypatch.setattr(estimate, "PROBE_SECONDS", 2.0)
    out = tmp_path / "full.json"
    argv = ["wdlmpro", "eval", "--model", slow_model, "--data", str(groups_file), "--chunk-size", "8"]
    assert main([*argv, "--estimate", "--out", str(out)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    found = re.fullmatch(r"estimate (\d+ (?:s|min)) \(([\d,]+) of 5,000 targets: (\d+ s); loading (\d+ s)\)"
                         r"; --limit (\d+): ~5 min", line)
    assert found, line
    total, loading = _seconds(found.group(1)), _seconds(found.group(4))
    assert not out.exists() and out.with_name("full.json.partial.jsonl").is_file()  # the probe's groups are kept
    # a 1/50 sample: --limit 50 keeps 50 of each part of speech (100 of 5,000 groups)
    predicted = loading + (total - loading) / 50
    started = time.monotonic()
    assert main([*argv, "--limit", "50", "--out", str(tmp_path / "sample.json")]) == 0
    measured = time.monotonic() - started
    print(f"estimate of the whole run {total:.0f} s (loading {loading:.0f} s): 1/50 predicted {predicted:.1f} s, "
          f"measured {measured:.1f} s")
    assert measured / 2 <= predicted <= measured * 2
    assert json.loads((tmp_path / "sample.json").read_text())["metrics"]["w2d"]["all"]["n"] == 100
    # the limit offered fits: its share of the groups scored at the measured rate stays within 5 minutes
    # (the line rounds the whole run's time to the minute past 60 s: the fit is checked against the least it can be)
    fits, least = int(found.group(5)), total - (30 if found.group(1).endswith("min") else 0.5)
    assert loading + (least - loading) * (2 * fits / 5000) <= 300 * 1.05


def test_a_long_eval_says_its_estimate_once_then_finishes_and_resumes_the_probe(slow_model, groups_file, tmp_path,
                                                                                 capsys, monkeypatch):
    """The line comes once, while the run goes on; a run after ``--estimate`` resumes the groups it scored."""
    from lexprobe import distributed

    monkeypatch.setattr(estimate, "PROBE_SECONDS", 0.5)
    monkeypatch.setattr(estimate, "ANNOUNCE_SECONDS", 1.0)
    argv = ["wdlmpro", "eval", "--model", slow_model, "--data", str(groups_file), "--limit", "20", "--chunk-size",
            "4", "--out", str(tmp_path / "r.json")]
    assert main([*argv, "--estimate"]) == 0
    capsys.readouterr()
    computed: list[int] = []
    original = distributed.run_units

    def counting(units, compute, *args, **kwargs):
        return original(units, lambda batch: computed.extend(batch) or compute(batch), *args, **kwargs)

    monkeypatch.setattr(distributed, "run_units", counting)  # the one loop's (``tasks.loop``)
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert len([line for line in err.splitlines() if "lexprobe: estimate" in line]) == 1, err
    assert 0 < len(computed) < 40  # the probe's groups were not scored again
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["w2d"]["all"]["n"] == 40

