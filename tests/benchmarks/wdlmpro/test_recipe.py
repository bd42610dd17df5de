"""`--recipe authors` for WDLMPro: each choice of the authors' code differs from the paper where it should."""

import json
import math

import numpy as np
import pytest

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.likelihood import Asker, fill, rank_of_gold
from lexprobe.benchmarks.wdlmpro.recipe import AUTHORS, PAPER, argsort_rank, best_pattern_rank
from lexprobe.asking.requests import Continuation, Slot
from lexprobe.errors import LexprobeError
from lexprobe.models import load_scorer
from lexprobe.scorers import reference
from lexprobe.scorers.base import Scorer
from tests.benchmarks.wdlmpro.helpers import evaluate_groups
from tests.benchmarks.wdlmpro.test_scoring import score_groups


def _group(pos, items):
    cands = tuple(Candidate(f"{w.replace(' ', '_')}.{pos}.01", w, d) for w, d in items)
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


class TextMaskedScorer(Scorer):
    """A masked 'model' serving ``Slot`` requests: a word's log-probability in a slot comes from a table."""

    def __init__(self, table):
        super().__init__("text-masked")
        self.kind, self.table, self.seen = "masked", table, []

    def slots(self, requests, progress=False):
        self.seen.extend((r.left, r.word, r.right) for r in requests)
        return [np.array([self.table.get((r.left, r.word, r.right), math.log(1e-3))]) for r in requests]


# ---------------------------------------------------------------- W2D pattern averaging


def _verb_table(word, gold_def, gold_p, sister_def, sister_p):
    """Probabilities of ``word`` in the two W2D verb patterns, for the gold and the sister definition."""
    table = {}
    for definition, (p1, p2) in ((gold_def, gold_p), (sister_def, sister_p)):
        table[("definition of ", word, f" is to {definition}")] = math.log(p1)
        table[(f"to {definition} is the definition of ", word, "")] = math.log(p2)
    return table


def test_w2d_pattern_aggregation_mean_prob_mean_logprob_best():
    # Two verb groups, two W2D patterns each; per-pattern probabilities of the target word:
    # alpha: gold (0.9, 0.001) -> mean P 0.4505, mean log P -3.506; sister (0.05, 0.05) -> 0.05, -2.996
    # gamma: gold (0.3, 0.3)   -> mean P 0.3,    mean log P -1.204; sister (0.9, 0.001) -> 0.4505, -3.506
    table = {**_verb_table("alpha", "gold x", (0.9, 1e-3), "sister x", (0.05, 0.05)),
             **_verb_table("gamma", "gold y", (0.3, 0.3), "sister y", (0.9, 1e-3))}
    groups = [_group("v", [("alpha", "gold x"), ("beta", "sister x")]),
              _group("v", [("gamma", "gold y"), ("delta", "sister y")])]
    assert PAPER.pattern_aggregation == AUTHORS.pattern_aggregation == "mean-prob"  # the paper's text, both recipes
    assert PAPER.average_patterns("w2d", [math.log(0.9), math.log(1e-3)]) == pytest.approx(math.log(0.4505))
    logprob = PAPER.with_aggregation("mean-logprob")
    assert logprob.average_patterns("w2d", [math.log(0.9), math.log(1e-3)]) == pytest.approx(
        (math.log(0.9) + math.log(1e-3)) / 2)
    # D2W: the mean of the patterns' (average) log-probabilities under both means
    assert PAPER.average_patterns("d2w", [-1.0, -3.0]) == logprob.average_patterns("d2w", [-1.0, -3.0]) == -2.0

    ranks = {}
    for agg in ("mean-prob", "mean-logprob", "best"):
        r = evaluate_groups(TextMaskedScorer(table), groups, task="w2d", pattern_aggregation=agg)
        ranks[agg] = [x["gold_rank"] for x in r["instances"]]
        assert r["config"]["pattern_aggregation"] == agg and r["recipe"] == r["config"]["recipe"] == "paper"
    # mean of probabilities and mean of log-probabilities rank the two groups oppositely
    assert ranks == {"mean-prob": [1, 2], "mean-logprob": [2, 1], "best": [1, 1]}
    # every pattern's own gold rank and score stays in the instance
    inst = evaluate_groups(TextMaskedScorer(table), groups, task="w2d")["instances"]
    assert inst[0]["patterns"] == [
        {"pattern": "definition of _ is to <DEF>", "gold_rank": 1, "rank_score": 1.0, "gold_score": round(math.log(0.9), 6)},
        {"pattern": "to <DEF> is the definition of _", "gold_rank": 2, "rank_score": 0.0,
         "gold_score": round(math.log(1e-3), 6)}]
    assert [p["gold_rank"] for p in inst[1]["patterns"]] == [2, 1]
    # a Python caller's config is checked as the CLI's parser checks it: one line
    with pytest.raises(LexprobeError, match="unknown --pattern-aggregation 'max'; use mean-prob, mean-logprob, best"):
        evaluate_groups(TextMaskedScorer(table), groups, pattern_aggregation="max")
    with pytest.raises(LexprobeError, match="--chunk-size must be at least 1, got 0"):
        evaluate_groups(TextMaskedScorer(table), groups, chunk_size=0)


def test_best_pattern_follows_the_tie_rule_within_a_pattern():
    # pattern 0 ties gold with a sister, pattern 1 ranks gold second: paper counts the tie against gold
    rows = np.array([[0.5, 0.5, 0.1], [0.2, 0.9, 0.1]])
    assert best_pattern_rank(rows, lambda r: rank_of_gold(r, PAPER)) == (2, 1, 0)
    assert best_pattern_rank(rows[::-1], lambda r: rank_of_gold(r, PAPER)) == (2, 1, 0)
    assert best_pattern_rank(np.array([[0.1, 0.9], [0.8, 0.2]]), lambda r: rank_of_gold(r, PAPER)) == (1, 0, 1)


# ---------------------------------------------------------------- patterns and capitalisation


def test_d2w_verb_patterns_capitalised_w2d_verb_patterns_not():
    group = _group("v", [("beckon", "signal with the hands or nod"), ("wink", "signal by winking")])
    seen = {}
    for recipe in ("paper", "authors"):
        scorer = TextMaskedScorer({})
        score_groups(scorer, [group], ("d2w",), recipe=recipe)
        seen[("d2w", recipe)] = {(left, right) for left, _, right in scorer.seen}
        scorer = TextMaskedScorer({})
        score_groups(scorer, [group], ("w2d",), recipe=recipe)
        seen[("w2d", recipe)] = {(left, right) for left, _, right in scorer.seen}
    d = "signal with the hands or nod"
    assert seen[("d2w", "paper")] == {("definition of ", f" is to {d}"), (f"to {d} is the definition of ", "")}
    assert seen[("d2w", "authors")] == {("Definition of ", f" is to {d}"), (f"To {d} is the definition of ", "")}
    assert seen[("w2d", "authors")] == seen[("w2d", "paper")]  # W2D keeps lower-case verb patterns in their code
    assert ("definition of ", " is to signal by winking") in seen[("w2d", "paper")]


def test_word_capitalised_with_str_capitalize_for_every_model():
    # paper: the first letter (an uncased model's tokenizer lower-cases it again); authors: str.capitalize()
    assert PAPER.show_word("dNA polymerase", True) == "DNA polymerase"
    assert AUTHORS.show_word("dNA polymerase", True) == "Dna polymerase"
    assert AUTHORS.show_word("dog", False) == PAPER.show_word("dog", False) == "dog"  # not at the start: unchanged
    assert Asker(Slot, AUTHORS).slot("_ is <DEF>", "DNA", "a molecule").word == "Dna"
    assert Asker(Slot, PAPER).slot("_ is <DEF>", "DNA", "a molecule").word == "DNA"


def test_definition_capitalised_where_it_starts_the_input(tiny_gpt2):
    tok = load_scorer(str(tiny_gpt2)).tokenizer
    definition = "a member of the genus Canis"
    paper, authors = Asker(Continuation, PAPER, tok), Asker(Continuation, AUTHORS, tok)
    assert paper.of("w2d", "n", "dog", definition) == [
        Continuation("a member of the genus Canis is the definition of", " dog")]
    assert authors.of("w2d", "n", "dog", definition) == [
        Continuation("A member of the genus canis is the definition of", " dog")]  # str.capitalize()
    # verbs: the definition follows "to"/"To" and keeps its case; D2W's pattern starts with "To"
    assert authors.of("w2d", "v", "nod", "signal Yes")[0].context == "to signal Yes is the definition of"
    assert authors.of("d2w", "v", "nod", "signal Yes")[0].context == "To signal Yes is the definition of"


def test_definitions_cut_to_48_tokens(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2))
    tok = scorer.tokenizer
    definition = " ".join(f"part{i} of a long gloss" for i in range(30))
    assert len(tok.tokenize(definition)) > 48
    cut = tok.convert_tokens_to_string(tok.tokenize(definition)[:48])
    assert len(tok.tokenize(cut)) == 48 and definition.startswith(cut)
    assert AUTHORS.show_definition(definition, False, tok) == cut
    assert PAPER.show_definition(definition, False, tok) == definition
    paper = Asker(Continuation, PAPER, tok).of("w2d", "v", "nod", definition)[0]
    authors = Asker(Continuation, AUTHORS, tok).of("w2d", "v", "nod", definition)[0]
    assert authors.context == f"to {cut} is the definition of" and paper.context == f"to {definition} is the definition of"
    assert len(scorer.split(paper.context, " nod")[0]) > len(scorer.split(authors.context, " nod")[0])


# ---------------------------------------------------------------- engine vs a literal reference


def _authors_masked_reference(scorer, task, pos, word, definition):
    per_pattern = []
    for pattern in AUTHORS.masked_patterns[(task, pos)]:
        shown = AUTHORS.show_definition(definition, pattern.startswith("<DEF>"), scorer.tokenizer)
        left, right = fill(pattern, shown)
        r = scorer.slot_request(left, word.capitalize() if left == "" else word, right)
        lp = reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix)
        per_pattern.append(lp.sum() if task == "w2d" else lp.mean())
    if task == "w2d":
        return math.log(np.mean(np.exp(per_pattern)))  # the mean of the patterns' probabilities
    return float(np.mean(per_pattern))


def test_authors_masked_engine_matches_reference(tiny_roberta):
    scorer = load_scorer(str(tiny_roberta), batch_size=4)
    groups = [
        _group("v", [("beckon", "signal with the hands or nod"), ("wink", "signal by winking")]),
        _group("n", [("bel canto", "a style of operatic singing"), ("crooning", "singing in a soft low tone")]),
    ]
    got = score_groups(scorer, groups, ("w2d", "d2w"), recipe="authors")
    paper = score_groups(scorer, groups, ("w2d", "d2w"), recipe="paper")
    logprob = score_groups(scorer, groups, ("w2d", "d2w"), recipe=PAPER.with_aggregation("mean-logprob"))
    for i, g in enumerate(groups):
        w2d = [_authors_masked_reference(scorer, "w2d", g.pos, g.word, c.definition) for c in g.candidates]
        d2w = [_authors_masked_reference(scorer, "d2w", g.pos, c.word, g.definition) for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-4)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-4)
        # log of the mean probability >= the mean log-probability (Jensen), equal only if the patterns agree
        assert np.all(paper[("w2d", i)] >= logprob[("w2d", i)] - 1e-9)
        assert np.any(paper[("w2d", i)] > logprob[("w2d", i)] + 1e-9)
        np.testing.assert_allclose(paper[("d2w", i)], logprob[("d2w", i)], atol=1e-9)
    # "Definition of", "To" for verbs: other inputs (the tiny random model is nearly indifferent to them;
    # test_d2w_verb_patterns_capitalised_w2d_verb_patterns_not shows the inputs themselves)
    assert not np.allclose(got[("d2w", 0)], paper[("d2w", 0)], rtol=0, atol=1e-7)
    np.testing.assert_allclose(got[("d2w", 1)], paper[("d2w", 1)], atol=1e-6)  # nouns: same patterns, word capitalised alike


# ---------------------------------------------------------------- ties


def test_argsort_ties_and_nan():
    # [nan, 1, 2, 3, 0]: np.argsort -> [4, 1, 2, 3, 0] (NaN sorts last): gold at position 4 of 4 -> rank 1
    assert argsort_rank([np.nan, 1.0, 2.0, 3.0, 0.0]) == (1, 0)
    assert rank_of_gold([np.nan, 1.0, 2.0, 3.0, 0.0], PAPER) == (5, 3)  # paper: NaN ranks last
    assert argsort_rank([0.5, 0.9, 0.1]) == rank_of_gold([0.5, 0.9, 0.1], PAPER) == (2, 1)  # no ties: the same
    assert argsort_rank([0.5, 0.5, 0.5]) == (3 - list(np.argsort([0.5, 0.5, 0.5])).index(0), int(np.argsort([0.5] * 3)[-1]))


def test_argsort_rank_follows_unstable_sort_on_large_tied_groups():
    # paper: k = 1 + #{others >= gold} = L - (gold's place in a *stable* ascending sort);
    # authors: L - (gold's place in np.argsort's default, unstable, sort). Find scores with
    # ties where the two sorts place the gold item differently (about half of such draws).
    rng = np.random.default_rng(0)
    for _ in range(200):
        scores = rng.integers(0, 3, size=40).astype(float)
        unstable = list(np.argsort(scores)).index(0)
        if unstable != list(np.argsort(scores, kind="stable")).index(0):
            break
    else:
        pytest.skip("np.argsort sorted every draw stably on this platform")
    k, best = argsort_rank(scores)
    assert (k, best) == (40 - unstable, int(np.argsort(scores)[-1]))
    paper_k = 1 + int(np.sum(scores[1:] >= scores[0]))
    assert rank_of_gold(scores, PAPER)[0] == paper_k != k


class ScriptedScorer(Scorer):
    def __init__(self, table):
        super().__init__("scripted")
        self.kind, self.table = "random", table

    def random_scores(self, requests, progress=False):
        return [np.asarray(self.table[r.key.split(":", 2)[2]], dtype=float) for r in requests]


def test_evaluate_records_recipe_and_applies_tie_rule(tmp_path):
    groups = [_group("n", [("a", "d0"), ("b", "d1"), ("c", "d2")])]
    table = {"a.n.01": [np.nan, 0.2, 0.1]}
    paper = evaluate_groups(ScriptedScorer(table), groups, task="w2d", out=tmp_path / "p.json")
    authors = evaluate_groups(ScriptedScorer(table), groups, task="w2d", recipe="authors", out=tmp_path / "a.json")
    assert paper["metrics"]["w2d"]["all"]["p_at_1"] == 0.0 and authors["metrics"]["w2d"]["all"]["p_at_1"] == 1.0
    assert authors["recipe"] == "authors" and authors["instances"][0]["predicted"] == "a.n.01"
    from lexprobe.benchmarks.wdlmpro.benchmark import WDLMPRO
    from lexprobe.core.contract import recipe_named

    with pytest.raises(LexprobeError, match="unknown recipe 'choose' for wdlmpro; use one of: paper, authors"):
        recipe_named(WDLMPRO, "choose")


def test_cli_recipe_and_method(tmp_path, capsys):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from lexprobe.cli import main

    data = write_jsonl([_group("n", [("dog", "a canine"), ("cat", "a feline"), ("fox", "a vulpine")])], tmp_path / "g.jsonl")
    out = tmp_path / "r.json"
    assert main(["wdlmpro", "eval", "--model", "random", "--recipe", "authors", "--data", str(data),
                 "--out", str(out), "--plot", str(tmp_path / "r.png")]) == 0
    assert json.loads(out.read_text())["recipe"] == "authors"
    # --method choose: a random model cannot be asked (one line, exit 2)
    assert main(["wdlmpro", "eval", "--model", "random", "--method", "choose", "--data", str(data),
                 "--out", str(tmp_path / "choose.json")]) == 2  # (r.json holds another run's result: #34 item 9)
    assert "needs generation; model 'random'" in capsys.readouterr().err


def test_pattern_aggregation_is_a_recorded_config_field_in_the_resume_key(tmp_path):
    from lexprobe.core.options import key_options, recorded
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.cli import main

    default, best = WDLMProConfig(), WDLMProConfig(pattern_aggregation="best")
    assert recorded(default)["pattern_aggregation"] == "mean-prob" and recorded(best)["pattern_aggregation"] == "best"
    assert key_options(default) != key_options(best)
    # an option of the likelihood method: with --method choose it is a one-line error (exit 2)
    out = tmp_path / "x.json"
    assert main(["wdlmpro", "eval", "--model", "random", "--method", "choose", "--pattern-aggregation", "best",
                 "--out", str(out)]) == 2 and not out.exists()
