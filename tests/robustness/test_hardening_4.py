"""Issue #19: item 12's second half (``--permutations`` bounded by the items' distinct orders) and
item 4 (over-long inputs and models with few positions: skipped and counted, every count printed).

Written to fail on the code before it: ``--permutations 100000`` was accepted and ran; item 4's
cases are described above their tests.
"""

from __future__ import annotations

import json

import pytest

from tests.human.helpers import wdlmpro_data
from tests.robustness.test_hardening_3 import run_cli


class ModelLoaded(Exception):
    pass


# --- 12. choose --permutations bounded by the largest item's distinct option orders -------------

@pytest.mark.parametrize("bench,most,too_many", [
    ("wdlmpro", 24, 25),  # largest group: 4 candidates -> 4! orders
    ("coda", 36, 37),     # largest group: 3 pairs, contexts and definitions each ordered -> (3!)^2
])
def test_12_permutations_beyond_the_distinct_orders_are_refused_before_the_model(bench, most, too_many, tmp_path,
                                                                               capsys, monkeypatch):
    from lexprobe.core import cli_common
    from tests.benchmarks.coda21.helpers import write_small

    def load(*a, **k):
        raise ModelLoaded

    monkeypatch.setattr(cli_common, "scorer_from_args", load)
    data = wdlmpro_data(tmp_path) if bench == "wdlmpro" else write_small(tmp_path / "coda.json")
    argv = [bench, "eval", "--data", data, "--model", "random", "--method", "choose", "--out", tmp_path / "r.json"]
    for huge in (too_many, 100000):
        code, err = run_cli(argv + ["--permutations", huge], capsys)
        assert code == 2 and err.count("\n") == 0, err
        assert f"--permutations {huge}" in err and f"{most} distinct option orders" in err
    assert not (tmp_path / "r.json").exists()
    with pytest.raises(ModelLoaded):  # the largest allowed value passes the check and reaches the model load
        run_cli(argv + ["--permutations", most], capsys)


# --- 4. over-long inputs: every truncation and skip counted in the result and printed -------------
#
# Written to fail on the code before it: truncations were counted in the scorer's stats only (not in
# ``counts``, not printed), WDLMPro's causal and masked queries were cut without any count, and a model
# with 16 positions stopped ``coda eval`` ("continuation of 36 tokens does not fit") and ``wdlmpro eval``
# ("expanded size (20) must match (16)", from a word whose masks fill the input).

#: A long context (single-token words of the tiny vocabulary) that no 16-position model takes whole.
LONG_CONTEXT = " ".join(["the signal of the hand and the nod of the person is a small act"] * 3)
#: A definition of 66 words of the tiny vocabularies (66 BERT tokens), too long for 16 or 64 positions.
LONG_DEFINITION = " ".join(["a small signal of the hand and the nod of the person"] * 6)


def _coda_fits_and_too_long() -> dict:
    """Noun group 1: short definitions after long contexts (both contexts cut at 16 positions);
    noun group 2: a definition of 66 tokens (skipped at 16 positions); one verb group like group 1."""
    def cand(synset, word, definition, context):
        return {"synset_name": synset, "definition": definition, "contexts": [context], "words_in_contexts": [word]}

    fits = {"common_ancestor_info": {"relation": "parent", "ancestor_name": "animal.n.01"}, "candidates": [
        cand("dog.n.01", "dog", "a small animal", f"{LONG_CONTEXT} dog"),
        cand("cat.n.01", "cat", "a large animal", f"the cat {LONG_CONTEXT}")]}
    too_long = {"common_ancestor_info": {"relation": "parent", "ancestor_name": "act.n.02"}, "candidates": [
        cand("nod.n.01", "nod", LONG_DEFINITION, "a nod of the hand"),
        cand("wink.n.01", "wink", "a small act", "a wink of the person")]}
    verb = {"common_ancestor_info": {"relation": "parent", "ancestor_name": "move.v.03"}, "candidates": [
        cand("nod.v.01", "nod", "make a small signal", f"{LONG_CONTEXT} nod"),
        cand("bow.v.01", "bow", "make a large signal", f"bow {LONG_CONTEXT}")]}
    return {"canary": "not for training", "n": [fits, too_long], "v": [verb]}


@pytest.fixture(scope="module")
def few_positions(tmp_path_factory):
    """Tiny BERT, GPT-2 and Llama with 16 positions (tests/tiny_models.py)."""
    from tests.tiny_models import build_tiny_bert, build_tiny_gpt2, build_tiny_llama

    root = tmp_path_factory.mktemp("few-positions")
    return {"bert": build_tiny_bert(root / "bert", positions=16), "gpt2": build_tiny_gpt2(root / "gpt2", positions=16),
            "llama": build_tiny_llama(root / "llama", positions=16)}


def _eval(argv, capsys):
    from lexprobe.cli import main

    capsys.readouterr()
    code = main([str(a) for a in argv])
    return code, capsys.readouterr().out


@pytest.mark.parametrize("model", ["bert", "gpt2", "llama"])
@pytest.mark.parametrize("recipe", ["paper", "authors"])
def test_4_coda_with_16_positions_skips_and_counts_instead_of_crashing(model, recipe, few_positions, tmp_path,
                                                                        capsys):
    from tests.benchmarks.coda21.helpers import write_small

    data = write_small(tmp_path / "coda.json", _coda_fits_and_too_long())
    out = tmp_path / "r.json"
    code, printed = _eval(["coda", "eval", "--data", data, "--model", few_positions[model], "--recipe", recipe,
                           "--out", out], capsys)
    assert code == 0
    result = json.loads(out.read_text())
    assert [s["unit"] for s in result["skipped"]] == ["n/1"]
    assert "does not fit the model's" in result["skipped"][0]["reason"]
    # both groups that fit have both their (long) contexts cut to fit
    assert result["counts"] == {"skipped_groups": 1, "skipped_too_long": 1, "truncated_contexts": 4}
    assert [(g["id"], g["truncated_contexts"]) for g in result["instances"]] == [("n/0", 2), ("v/0", 2)]
    assert result["metrics"]["alignment"]["all"]["n"] == 2
    assert "counts: skipped groups 1, skipped too long 1, truncated contexts 4" in printed


LONG_WORD = "xylophonequartzjinx"  # letters outside the tiny vocabularies: one token each, 19 in all


def _wdlmpro_data(path):
    """dog.n.01: short definitions and cat.n.01's 66-word one; bird.n.01: a target word of 19 tokens."""
    groups = [
        {"target": "dog.n.01", "pos": "n", "word": "dog", "candidates": [
            {"synset": "dog.n.01", "word": "dog", "definition": "a small animal"},
            {"synset": "cat.n.01", "word": "cat", "definition": LONG_DEFINITION},
            {"synset": "wolf.n.01", "word": "wolf", "definition": "a large animal"}]},
        {"target": "bird.n.01", "pos": "n", "word": LONG_WORD, "candidates": [
            {"synset": "bird.n.01", "word": LONG_WORD, "definition": "a small animal with hands"},
            {"synset": "fox.n.01", "word": "fox", "definition": "a small animal"}]},
    ]
    path.write_text("".join(json.dumps(g) + "\n" for g in groups), encoding="utf-8")
    return path


def _wdlmpro_run(model, recipe, tmp_path, capsys):
    out = tmp_path / "r.json"
    code, printed = _eval(["wdlmpro", "eval", "--data", _wdlmpro_data(tmp_path / "groups.jsonl"), "--model", model,
                           "--recipe", recipe, "--out", out], capsys)
    assert code == 0
    result = json.loads(out.read_text())
    cut = {f"{r['task']}:{r['target']}": r.get("truncated_definitions", 0) for r in result["instances"]}
    return result, cut, printed


@pytest.mark.parametrize("model", ["bert", "gpt2", "llama"])
@pytest.mark.parametrize("recipe", ["paper", "authors"])
def test_4_wdlmpro_with_16_positions_skips_and_counts_instead_of_crashing(model, recipe, few_positions, tmp_path,
                                                                           capsys):
    result, cut, printed = _wdlmpro_run(few_positions[model], recipe, tmp_path, capsys)
    if recipe == "authors":  # the authors' words are the synsets' lemmas: no long word left to skip
        assert result["skipped"] == [] and result["counts"]["skipped_too_long"] == 0
        scored = ["w2d:dog.n.01", "w2d:bird.n.01", "d2w:dog.n.01", "d2w:bird.n.01"]
    else:  # the long word is bird.n.01's target (W2D) and one of its candidates (D2W)
        assert [s["unit"] for s in result["skipped"]] == ["w2d:bird.n.01", "d2w:bird.n.01"]
        assert all("does not fit the model's" in s["reason"] for s in result["skipped"])
        assert result["counts"]["skipped_too_long"] == 2
        assert "skipped too long 2" in printed
        scored = ["w2d:dog.n.01", "d2w:dog.n.01"]
    assert sorted(cut) == sorted(scored)
    assert sum(m["all"]["n"] for m in result["metrics"].values()) == len(scored)
    # 16 positions cut more than the 66-word definition (a causal pattern alone takes 12 tiny-GPT-2 tokens);
    # the result's count is the records' sum, and it is printed
    assert cut["w2d:dog.n.01"] >= 1 and result["counts"]["truncated_definitions"] == sum(cut.values())
    assert f"truncated definitions {sum(cut.values())}" in printed


@pytest.mark.parametrize("build", ["build_tiny_bert", "build_tiny_gpt2"])
def test_4_wdlmpro_counts_exactly_the_definitions_cut(build, tmp_path, capsys):
    """With 64 positions only cat.n.01's definition (6 x 11 words: 66 BERT tokens, more GPT-2 ones) is cut, once: in dog.n.01's W2D,
    where it is a candidate's; the 19-token word fits."""
    from tests import tiny_models

    model = getattr(tiny_models, build)(tmp_path / "model", positions=64)
    result, cut, printed = _wdlmpro_run(model, "paper", tmp_path, capsys)
    assert result["skipped"] == []
    assert cut == {"w2d:dog.n.01": 1, "w2d:bird.n.01": 0, "d2w:dog.n.01": 0, "d2w:bird.n.01": 0}
    assert result["counts"] == {"skipped_too_long": 0, "truncated_definitions": 1}
    assert "counts: truncated definitions 1" in printed


def test_4_a_cut_causal_context_scores_as_its_kept_end(few_positions, tmp_path):
    """The fitted requests (``fits_by_group`` + ``Continuation``) score what the plain reference scores
    for the same (context, definition): the context's end that fits, every definition token."""
    from lexprobe.benchmarks.coda21.dataset import load_coda
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.benchmarks.coda21.likelihood import fits_by_group, group_requests, match_matrices, prompt
    from lexprobe.asking.engine import Engine
    from lexprobe.asking.requests import Continuation
    from lexprobe.models import load_scorer
    from lexprobe.scorers.reference import causal_continuation_logprobs
    from tests.benchmarks.coda21.helpers import write_small

    data = load_coda(write_small(tmp_path / "coda.json", _coda_fits_and_too_long()))
    scorer = load_scorer(str(few_positions["gpt2"]), kind="causal", device="cpu")
    group = data.by_pos("n")[0]
    asked = [group_requests(Continuation, group, CodaConfig())]
    assert fits_by_group([group], asked, Engine(scorer)) == [(None, 2)]  # both prompts cut, none too long
    (matrix,) = match_matrices([group], scorer)
    for c, ctx in enumerate(group.candidates):
        text = prompt(ctx.context, ctx.word, "n")
        for d, dfn in enumerate(group.candidates):
            reference = causal_continuation_logprobs(scorer, text, " " + dfn.definition).sum()
            assert matrix[c, d] == pytest.approx(reference, abs=1e-4)


def test_4_a_long_context_on_a_small_model_is_counted_and_printed(tiny_gpt2, tmp_path, capsys):
    """The issue's case: a very long CoDA21 context on a small (256-position) model exits 0, and now says so."""
    from tests.benchmarks.coda21.helpers import small_coda, write_small

    obj = json.loads(json.dumps(small_coda()))  # a copy: small_coda() shares its dicts
    first = obj["n"][0]["candidates"][0]
    first["contexts"] = [" ".join(["the dust"] * 1000)]  # ~2,000 tokens, under the 16 KB a context may be
    first["words_in_contexts"] = ["dust"]
    out = tmp_path / "r.json"
    code, printed = _eval(["coda", "eval", "--data", write_small(tmp_path / "coda.json", obj), "--model", tiny_gpt2,
                           "--out", out], capsys)
    assert code == 0
    result = json.loads(out.read_text())
    assert result["counts"] == {"skipped_groups": 0, "skipped_too_long": 0, "truncated_contexts": 1}
    assert [g.get("truncated_contexts", 0) for g in result["instances"]] == [1, 0, 0]
    assert "counts: truncated contexts 1" in printed


def test_4_sentence_encoders_count_the_texts_they_cut(minilm_path, tmp_path, capsys):
    """sentence-transformers cuts a text to ``max_seq_length`` (MiniLM: 256 word pieces) without a word; the
    result counts such texts: one CoDA21 context and one WDLMPro definition of 600 words here."""
    from tests.benchmarks.coda21.helpers import small_coda, write_small

    obj = json.loads(json.dumps(small_coda()))  # a copy: small_coda() shares its dicts
    obj["n"][0]["candidates"][0]["contexts"] = [" ".join(["the dust"] * 300)]
    obj["n"][0]["candidates"][0]["words_in_contexts"] = ["dust"]
    out = tmp_path / "c.json"
    code, printed = _eval(["coda", "eval", "--data", write_small(tmp_path / "coda.json", obj), "--model", minilm_path,
                           "--out", out], capsys)
    assert code == 0 and json.loads(out.read_text())["counts"] == {"skipped_groups": 0, "truncated_texts": 1}
    assert "counts: truncated texts 1" in printed

    data = _wdlmpro_data(tmp_path / "groups.jsonl")  # cat.n.01's definition: 66 words, under 256 pieces
    data.write_text(data.read_text().replace("a large animal", " ".join(["a large animal"] * 200)))
    out = tmp_path / "w.json"
    code, printed = _eval(["wdlmpro", "eval", "--data", data, "--model", minilm_path, "--out", out], capsys)
    assert code == 0 and json.loads(out.read_text())["counts"] == {"truncated_texts": 1}
    assert "counts: truncated texts 1" in printed


def test_4_an_interrupted_run_resumes_to_the_same_counts(few_positions, tmp_path, monkeypatch):
    """The counts live in the units' records (the resume log), not in the scorer: a run stopped after its
    first groups and resumed by a fresh scorer counts what one whole run counts, scoring only the rest."""
    from lexprobe.benchmarks.coda21 import likelihood as ce
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small

    data = write_small(tmp_path / "coda.json", _coda_fits_and_too_long())
    config = CodaConfig(data=str(data), groups_per_chunk=1)
    whole = evaluate("coda21", load_scorer(str(few_positions["gpt2"]), device="cpu"), config)
    assert whole["counts"] == {"skipped_groups": 1, "skipped_too_long": 1, "truncated_contexts": 4}

    real, computed, stop = ce.match_matrices, [], [True]

    def scored(groups, *a, **k):
        if stop[0] and any(g.pos == "v" for g in groups):
            raise KeyboardInterrupt
        computed.extend(g.id for g in groups)
        return real(groups, *a, **k)

    monkeypatch.setattr(ce, "match_matrices", scored)
    out = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        evaluate("coda21", load_scorer(str(few_positions["gpt2"]), device="cpu"), config, out)
    assert computed == ["n/0"] and not out.exists()
    stop[0] = False
    resumed = evaluate("coda21", load_scorer(str(few_positions["gpt2"]), device="cpu"), config, out)
    assert computed == ["n/0", "v/0"]  # n/0 and the skipped n/1 came from the log
    assert resumed["counts"] == whole["counts"]
    assert resumed["skipped"] == whole["skipped"]
    assert [(g["id"], g["truncated_contexts"]) for g in resumed["instances"]] == [("n/0", 2), ("v/0", 2)]


def test_4_the_report_shows_what_was_cut_and_skipped(few_positions, tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import write_small
    from tests.report.htmltables import read_page, run_records

    data = write_small(tmp_path / "coda.json", _coda_fits_and_too_long())
    _eval(["coda", "eval", "--data", data, "--model", few_positions["gpt2"], "--out", tmp_path / "lm.json"], capsys)
    _eval(["coda", "eval", "--data", data, "--model", "random", "--out", tmp_path / "random.json"], capsys)
    _eval(["report", tmp_path / "lm.json", tmp_path / "random.json", "--out", tmp_path / "rep"], capsys)
    records = run_records(read_page((tmp_path / "rep" / "index.html").read_text()))
    assert records["lm.json"]["truncated, skipped, dropped"] == "skipped groups 1, skipped too long 1, truncated contexts 4"
    assert records["random.json"]["truncated, skipped, dropped"] == "none"


@pytest.mark.parametrize("model", ["bert", "gpt2", "llama"])
def test_4_coda_ask_with_16_positions_skips_and_counts_instead_of_crashing(model, few_positions, tmp_path, capsys,
                                                                           monkeypatch):
    """``--method ask`` fed whole questions: IndexError (GPT-2's position table), "expanded size" (BERT), and
    positions past the table for Llama (no error: scores of a model run outside its range)."""
    from tests.benchmarks.coda21.helpers import write_small

    _answers_the_tiny_vocabularies_tell_apart(monkeypatch)

    out = tmp_path / "r.json"
    code, printed = _eval(["coda", "eval", "--data", write_small(tmp_path / "coda.json", _coda_fits_and_too_long()),
                           "--model", few_positions[model], "--method", "ask", "--out", out], capsys)
    assert code == 0
    result = json.loads(out.read_text())
    assert [s["unit"] for s in result["skipped"]] == ["n/0", "n/1", "v/0"]
    assert all("does not fit the model's" in s["reason"] for s in result["skipped"])
    assert result["counts"]["skipped_too_long"] == 3 and result["counts"]["questions_asked"] == 0
    assert "skipped too long 3" in printed


def _answers_the_tiny_vocabularies_tell_apart(monkeypatch) -> None:
    """The byte-level tiny vocabularies spell " Yes" and " No" with one first token, which ``--method ask``
    refuses (#26 D10); one-token answers they tell apart keep these fit checks about positions."""
    import lexprobe.benchmarks.coda21.ask as asking

    monkeypatch.setattr(asking, "ANSWERS", (" dog", " cat"))


@pytest.mark.parametrize("build,positions", [("build_tiny_gpt2", 128), ("build_tiny_bert", 72)])
def test_4_coda_ask_skips_only_the_group_whose_questions_do_not_fit(build, positions, tmp_path, capsys, monkeypatch):
    """Longest question (tokens): tiny GPT-2 n/0 114, n/1 175, v/0 114 (+1 answer token); tiny BERT 61, 88, 60
    (+1 appended mask): with 128 and 72 positions (70 for BERT's input) only n/1, the 66-word definition, is too long."""
    from tests import tiny_models
    from tests.benchmarks.coda21.helpers import write_small

    _answers_the_tiny_vocabularies_tell_apart(monkeypatch)
    model = getattr(tiny_models, build)(tmp_path / "model", positions=positions)
    out = tmp_path / "r.json"
    code, printed = _eval(["coda", "eval", "--data", write_small(tmp_path / "coda.json", _coda_fits_and_too_long()),
                           "--model", model, "--method", "ask", "--out", out], capsys)
    assert code == 0
    result = json.loads(out.read_text())
    assert [s["unit"] for s in result["skipped"]] == ["n/1"]
    assert [g["id"] for g in result["instances"]] == ["n/0", "v/0"]
    assert result["counts"]["skipped_too_long"] == 1 and result["counts"]["questions_asked"] == 2 * 2 + 2 * 2  # one question per pair, k = 2
