"""WSD items WordNet decides on: an instance whose lemma has no WordNet sense cannot be scored and is skipped with
its reason in ``counts`` (every method, a resumed run too), never an exception after scoring; a gold key WordNet
does not know is refused in one line naming where it was read, before any model loads."""

from __future__ import annotations

import json

import pytest

from lexprobe.benchmarks.wsd import results as res
from lexprobe.benchmarks.wsd.config import WsdChooseOptions, WsdConfig
from lexprobe.cli import main
from lexprobe.core import registry
from lexprobe.core.evaluate import evaluate
from lexprobe.models import load_scorer
from tests.data.test_row_validation import crafted, refused
from tests.data.test_wsd import GOLD, XML, write_pair
from tests.standins.continuation import ContinuationOnly
from tests.standins.embedding import EmbedOnly
from tests.standins.generation import GenerateOnly

BENCH = registry.get("wsd")
#: a sixth instance whose lemma WordNet lacks (its gold key is made up too: it cannot be scored either way)
UNKNOWN = ('<wf lemma="&apos;s" pos="PRT">&apos;s</wf>\n</sentence>',
           '<wf lemma="&apos;s" pos="PRT">&apos;s</wf>\n'
           '<instance id="d000.s001.t002" lemma="zzqqxx" pos="NOUN">zzqqxx</instance>\n</sentence>')


@pytest.fixture()
def with_unknown_lemma(tmp_path):
    return write_pair(tmp_path / "data", XML.replace(*UNKNOWN), GOLD + "d000.s001.t002 zzqqxx%1:09:00::\n",
                      name="mini")


def _check_skipped(result: dict) -> None:
    record = next(r for r in result["instances"] if r["id"] == "d000.s001.t002")
    assert record["skipped"] == "no WordNet 3.0 sense of 'zzqqxx' as a noun (nothing to choose from)"
    assert "correct" not in record and record["candidates"] == []
    assert result["counts"]["unanswered_without_senses"] == 1 and result["counts"]["skipped_too_long"] == 0
    assert {"unit": "d000.s001.t002", "reason": record["skipped"]} in result["skipped"]
    figures = result["metrics"]["wsd"]["all"]
    assert figures["n"] == 6 and figures["answered"] == 5  # unanswered: in R, not in P (the framework's scorer)


@pytest.mark.parametrize("method, scorer", [("likelihood", ContinuationOnly), ("embedding", EmbedOnly),
                                            ("likelihood", lambda: load_scorer("random")),
                                            ("embedding", lambda: load_scorer("random"))])
def test_an_instance_without_senses_is_skipped_with_its_reason(with_unknown_lemma, tmp_path, method, scorer):
    result = evaluate(BENCH, scorer(), WsdConfig(data=str(with_unknown_lemma), method=method), tmp_path / "r.json",
                      progress=False)
    _check_skipped(result)
    assert "d000.s001.t002" not in (tmp_path / "r.key.txt").read_text()


def test_the_cli_prints_the_count_and_exits_0(with_unknown_lemma, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["wsd", "eval", "--model", "random", "--data", str(with_unknown_lemma), "--out", str(out)]) == 0
    _check_skipped(json.loads(out.read_text()))
    assert "counts: unanswered without senses 1" in capsys.readouterr().out


def test_a_resumed_run_of_such_an_instance_finishes(with_unknown_lemma, tmp_path, monkeypatch):
    """Every unit logged, then the run stops while the result is made: the rerun reads the log and finishes
    (the records logged said skipped, so nothing stops it again)."""
    out = tmp_path / "r.json"
    config = WsdConfig(data=str(with_unknown_lemma))
    real = res.unit_values

    def stop(records):
        raise KeyboardInterrupt

    monkeypatch.setattr(res, "unit_values", stop)
    scorer = ContinuationOnly()
    with pytest.raises(KeyboardInterrupt):
        evaluate(BENCH, scorer, config, out, progress=False)
    assert out.with_name("r.json.partial.jsonl").exists() and scorer.asked
    monkeypatch.setattr(res, "unit_values", real)
    scorer.asked.clear()
    result = evaluate(BENCH, scorer, config, out, progress=False)
    assert scorer.asked == []  # every unit came from the log
    _check_skipped(result)


def test_a_logged_record_neither_answered_nor_skipped_is_not_read_back():
    from lexprobe.benchmarks.wsd.methods import ScoredRecord
    from lexprobe.validation import problems

    base = {"id": "a", "set": "s", "pos": "N", "lemma": "x", "word": "x", "gold": ["x%1:09:00::"], "candidates": []}
    assert problems(base, ScoredRecord) == ["the value is not answered or skipped"]
    assert problems({**base, "skipped": "why"}, ScoredRecord) == []
    assert problems({**base, "candidates": ["x%1:09:00::"], "correct": 1.0}, ScoredRecord) == []


def test_choose_answers_such_an_instance_unasked(with_unknown_lemma, tmp_path):
    config = WsdConfig(data=str(with_unknown_lemma), method="choose", choose=WsdChooseOptions(reading="generation"))
    result = evaluate(BENCH, GenerateOnly(), config, tmp_path / "r.json", progress=False)
    record = next(r for r in result["instances"] if r["id"] == "d000.s001.t002")
    assert record["generation"]["correct"] is False and record["generation"]["unasked"]


# --- gold keys WordNet knows ----------------------------------------------------------------------------------------

def test_a_gold_key_wordnet_does_not_know_is_refused_naming_its_line(tmp_path, capsys, monkeypatch):
    data = write_pair(tmp_path / "data", XML, GOLD.replace("run%2:38:00::", "run%2:99:99::"), name="mini")
    line = refused(["wsd", "eval", "--model", "random", "--data", data, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{data.with_name('mini.gold.key.txt')}:4:" in line and "'run%2:99:99::'" in line, line
    assert "not a WordNet 3.0 sense key" in line and not (tmp_path / "r.json").exists()


def test_an_unknown_gold_key_beside_a_known_one_is_refused(tmp_path, capsys, monkeypatch):
    """One known key beside the unknown one: still refused (the unknown one could never be answered)."""
    gold = GOLD.replace("peculiar%5:00:00:characteristic:00", "peculiar%5:00:00:nonesuch:00")
    data = write_pair(tmp_path / "data", XML, gold, name="mini")
    line = refused(["wsd", "eval", "--model", "random", "--data", data, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert ":3:" in line and "'peculiar%5:00:00:nonesuch:00'" in line, line


def test_an_export_rows_gold_key_wordnet_does_not_know_is_refused_naming_its_row(tmp_path, capsys, monkeypatch):
    data = write_pair(tmp_path / "data", XML, GOLD, name="mini")
    export = tmp_path / "export"
    assert main(["export", "hf", "wsd", "--data", str(data), "--out", str(export)]) == 0

    def unknown(rows):
        rows[1] = {**rows[1], "gold": ["refer%2:99:99::"]}
        return rows

    folder = crafted({"wsd": export}, "wsd", tmp_path, unknown)
    line = refused(["wsd", "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert "test.parquet: row 1:" in line and "'refer%2:99:99::'" in line, line
