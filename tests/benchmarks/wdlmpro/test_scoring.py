"""WDLMPro's likelihood method on the request layer: the in-process models against a literal per-pair
implementation of the paper's formulas; each request type on a stand-in backend that serves only it, with scores
known by hand; a backend without any of them refused in one line before any work."""

import numpy as np
import pytest

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.likelihood import Asker, Chunk, fill
from lexprobe.benchmarks.wdlmpro.recipe import PAPER, RECIPES
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Slot
from lexprobe.errors import CapabilityError
from lexprobe.models import load_scorer
from lexprobe.scorers import reference
from tests.benchmarks.wdlmpro.helpers import evaluate_groups
from tests.standins.continuation import ContinuationOnly
from tests.standins.embedding import EmbedOnly
from tests.standins.generation import GenerateOnly

MASKED_PATTERNS = {pos: PAPER.masked_patterns[("w2d", pos)] for pos in ("n", "v")}
CAUSAL_PATTERNS = {pos: PAPER.causal_patterns[("w2d", pos)] for pos in ("n", "v")}


def _group(target, pos, items):
    cands = tuple(Candidate(f"{w.replace(' ', '_')}.{pos}.01", w, d) for w, d in items)
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


GROUPS = [
    _group("beckon", "v", [("beckon", "signal with the hands or nod"), ("wink", "signal by winking"),
                           ("nod", "express or signify by nodding"), ("bow", "bend one's knee or body")]),
    _group("wink", "v", [("wink", "signal by winking"), ("beckon", "signal with the hands or nod"),
                         ("nod", "express or signify by nodding")]),
    _group("a cappella singing", "n", [("a cappella singing", "singing without instrumental accompaniment"),
                                        ("crooning", "singing in a soft low tone"),
                                        ("bel canto", "a style of operatic singing")]),
]


def score_groups(scorer, groups, tasks, recipe="paper") -> dict:
    """{(task, group index): candidate scores}, as the likelihood method scores a chunk of groups."""
    return Chunk(Engine(scorer), groups, tasks, RECIPES[recipe] if isinstance(recipe, str) else recipe).scores


def _masked_reference(scorer, pos, word, definition):
    """Paper: W2D sums the word's token log-probs and averages the patterns' probabilities;
    D2W averages the token log-probs and the patterns' averages."""
    sums, means = [], []
    for pattern in MASKED_PATTERNS[pos]:
        left, right = fill(pattern, definition)
        r = scorer.slot_request(left, word.capitalize() if left == "" else word, right)
        lp = reference.masked_slot_logprobs(scorer, r.prefix, r.word, r.suffix)
        sums.append(lp.sum())
        means.append(lp.mean())
    return np.log(np.mean(np.exp(sums))), np.mean(means)


def _causal_reference(scorer, pos, word, definition):
    left, _ = fill(CAUSAL_PATTERNS[pos], definition)
    lp = reference.causal_continuation_logprobs(scorer, left.rstrip(), " " + word)
    return lp.sum(), lp[0]


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
def test_masked_engine_matches_reference(fixture, request):
    scorer = load_scorer(str(request.getfixturevalue(fixture)), batch_size=4)
    got = score_groups(scorer, GROUPS, ("w2d", "d2w"))
    for i, g in enumerate(GROUPS):
        w2d = [_masked_reference(scorer, g.pos, g.word, c.definition)[0] for c in g.candidates]
        d2w = [_masked_reference(scorer, g.pos, c.word, g.definition)[1] for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-4)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-4)


def test_causal_engine_matches_reference(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), batch_size=2)
    got = score_groups(scorer, GROUPS, ("w2d", "d2w"))
    for i, g in enumerate(GROUPS):
        w2d = [_causal_reference(scorer, g.pos, g.word, c.definition)[0] for c in g.candidates]
        d2w = [_causal_reference(scorer, g.pos, c.word, g.definition)[1] for c in g.candidates]
        np.testing.assert_allclose(got[("w2d", i)], w2d, atol=1e-4)
        np.testing.assert_allclose(got[("d2w", i)], d2w, atol=1e-4)
    d2w_only = score_groups(scorer, GROUPS, ("d2w",))
    for i in range(len(GROUPS)):
        np.testing.assert_allclose(d2w_only[("d2w", i)], got[("d2w", i)], atol=1e-4)


def test_capitalising_a_word_changes_nothing_for_an_uncased_model(tiny_bert, tiny_roberta):
    """The paper capitalises a word that starts the input for case-sensitive models; lexprobe capitalises it for
    every model, since an uncased model's tokenizer lower-cases it again (the same ids)."""
    bert, roberta = load_scorer(str(tiny_bert)), load_scorer(str(tiny_roberta))
    for word in ("dog", "warm up", "a cappella singing"):
        assert bert.slot_request("", word.capitalize(), " is a small animal") == bert.slot_request(
            "", word, " is a small animal")
    slot = Asker(Slot).slot("_ is <DEF>", "dog", "a small animal")
    assert slot == Slot("", "Dog", " is a small animal")
    fit = Engine(roberta).fit([slot])[0]
    assert roberta.tokenizer.decode(list(roberta.slot_request(slot.left, slot.word, slot.right).word)) == "Dog"
    assert fit.tokens == 3  # "Dog" in the tiny byte-level vocabulary: three tokens (" dog" is one)
    mid = Asker(Slot).slot("definition of _ is to <DEF>", "dog", "a small animal")
    assert mid.word == "dog" and roberta.tokenizer.decode(list(roberta.slot_request(mid.left, mid.word,
                                                                                     mid.right).word)).strip() == "dog"


def test_embedding_scores_are_cosines(tmp_path):
    from lexprobe.scorers.embedding import StaticVectorsScorer

    vec = tmp_path / "v.vec"
    vec.write_text("wink 1 0\nbeckon 0 1\nnod 1 1\nsignal 0 1\nwinking 1 0\nby 0 0\n")
    scorer = StaticVectorsScorer.load(vec)
    g = GROUPS[1]
    got = score_groups(scorer, [g], ("w2d",))[("w2d", 0)]
    # "wink"=(1,0) vs "signal by winking"=(1/2,1/2) normalised, "signal with the hands or nod"=(1,2)
    np.testing.assert_allclose(got[:2], [2 ** -0.5, 1 / 5 ** 0.5], atol=1e-6)


def test_fill_handles_underscores_in_definitions():
    # three WordNet 3.0 definitions contain "_"; the blank is the pattern's own
    assert fill("_ is <DEF>", "a snake_case name") == ("", " is a snake_case name")
    assert fill("to <DEF> is the definition of _", "x_y") == ("to x_y is the definition of ", "")


# ---------------------------------------------------------------- one request type per backend


def _by_hand(scores, recipe_ties_against_gold=True):
    """(gold rank, predicted index) of candidate 0 under the paper's tie rule: ties count against gold."""
    return 1 + sum(s >= scores[0] for s in scores[1:]), int(np.argmax(scores))


@pytest.mark.parametrize("recipe", ["paper", "authors"])
def test_likelihood_on_a_backend_that_serves_only_continuations(recipe, tmp_path):
    """Each word of a continuation costs -len/10 (``ContinuationOnly``): D2W ranks the candidate words by their
    first word's length, W2D asks the target's word after every definition (all tie)."""
    backend = ContinuationOnly()
    result = evaluate_groups(backend, GROUPS, out=tmp_path / "r.json", recipe=recipe)
    by = {(r["task"], r["target"]): r for r in result["instances"]}
    def rank(scores):
        if recipe == "paper":
            return _by_hand(scores)[0]
        return len(scores) - list(np.argsort(scores)).index(0)  # np.argsort's order (the authors' code)

    for g in GROUPS:
        d2w = [-len(c.word.split()[0]) / 10 for c in g.candidates]
        w2d = [sum(-len(w) / 10 for w in g.word.split())] * len(g.candidates)
        assert by[("d2w", g.target)]["gold_rank"] == rank(d2w)
        assert by[("w2d", g.target)]["gold_rank"] == rank(w2d)
        assert by[("w2d", g.target)]["word_tokens"] == len(g.word.split())  # no tokens counted: whitespace words
    assert {r.continuation for r in backend.asked} == {" " + c.word for g in GROUPS for c in g.candidates}
    assert any(r.context == "to signal by winking is the definition of" for r in backend.asked)
    assert result["counts"] == {"skipped_too_long": 0, "truncated_definitions": 0}


def test_what_does_not_fit_a_continuation_backend_is_skipped_or_cut_and_counted(tmp_path):
    """``limit`` words: "a cappella singing" (3 words) alone does not fit 3, so its group's W2D is skipped; a
    context cut to fit is a truncated definition."""
    result = evaluate_groups(ContinuationOnly(limit=3), GROUPS, out=tmp_path / "r.json")
    skipped = [r for r in result["skipped"]]
    assert skipped == [{"unit": "w2d:a_cappella_singing.n.01", "reason": "a continuation of 3 words does not fit 3 "
                        "(skipped: cutting the word would change what is scored)"},
                       {"unit": "d2w:a_cappella_singing.n.01", "reason": "a continuation of 3 words does not fit 3 "
                        "(skipped: cutting the word would change what is scored)"}]
    cut = {(r["task"], r["target"]): r.get("truncated_definitions", 0) for r in result["instances"]}
    # every context here has more than one word: with a one-word continuation, context + word > 3 words
    assert cut[("w2d", "beckon.v.01")] == 4 and cut[("d2w", "wink.v.01")] == 3
    assert result["counts"] == {"skipped_too_long": 2, "truncated_definitions": sum(cut.values())}


def test_likelihood_on_a_backend_that_serves_only_embeddings(tmp_path):
    """``EmbedOnly``: a text's vector counts its letters; a score is the cosine of the word's and the definition's."""
    result = evaluate_groups(EmbedOnly(), GROUPS, out=tmp_path / "r.json")
    by = {(r["task"], r["target"]): r for r in result["instances"]}
    for g in GROUPS:
        w2d = [float(EmbedOnly.vector(g.word) @ EmbedOnly.vector(c.definition)) for c in g.candidates]
        d2w = [float(EmbedOnly.vector(c.word) @ EmbedOnly.vector(g.definition)) for c in g.candidates]
        for task, scores in (("w2d", w2d), ("d2w", d2w)):
            k, best = _by_hand(scores)
            assert by[(task, g.target)]["gold_rank"] == k
            assert by[(task, g.target)]["predicted"] == g.candidates[best].synset
    assert result["counts"] == {"truncated_texts": 0}  # a backend without an input limit fits every text


def test_a_backend_without_the_request_types_is_refused_in_one_line(tmp_path):
    with pytest.raises(CapabilityError) as err:
        evaluate_groups(GenerateOnly(), GROUPS, out=tmp_path / "r.json")
    message = str(err.value)
    assert message.startswith("wdlmpro --method likelihood needs random scores or log-probabilities of masked "
                              "slots (a masked LM) or log-probabilities of continuations (a causal LM) or text "
                              "embeddings; model 'generate-only' offers generation")
    assert "\n" not in message and not (tmp_path / "r.json").exists()


def test_choose_on_a_backend_that_serves_only_generation(tmp_path):
    """Every question answered "1": right where the gold option was shown first."""
    from lexprobe.prompting.choose_cli import ChooseOptions

    result = evaluate_groups(GenerateOnly(), GROUPS, out=tmp_path / "r.json", method="choose",
                             choose=ChooseOptions(reading="generation"))
    for r in result["instances"]:
        assert r["generation"]["choice"] == r["order"][0]
        assert r["generation"]["correct"] == (r["gold_position"] == 0)
    first = [r["gold_position"] == 0 for r in result["instances"] if r["task"] == "w2d"]
    assert result["metrics"]["w2d"]["all"]["generation.p_at_1"] == pytest.approx(np.mean(first))


def test_the_authors_window_is_the_batch_s_longest_fitted_context(tiny_gpt2):
    """``Fit.context_tokens`` of each W2D request sets its batch's window (``recipe.causal_batch_shift``)."""
    from dataclasses import replace

    from lexprobe.benchmarks.wdlmpro.recipe import AUTHORS

    scorer = load_scorer(str(tiny_gpt2))
    recipe = replace(AUTHORS, causal_batch_shift=2)
    chunk = Chunk(Engine(scorer), GROUPS[:1], ("w2d",), recipe)
    lengths = [f[0].context_tokens for f in chunk.fit[("w2d", 0)]]
    assert lengths == [len(scorer.tokenize_pair(r[0].context, r[0].continuation)[0]) for r in chunk.asked[("w2d", 0)]]
    asked = []
    chunk.engine = type("Spy", (), {"__call__": lambda self, rs: asked.extend(rs) or [np.zeros(1)] * len(rs)})()
    chunk.windowed_w2d([("w2d", 0)], 2)
    assert [r.window for r in asked] == [max(lengths[:2])] * 2 + [max(lengths[2:])] * 2
    assert all(isinstance(r, Continuation) and r.continuation == " beckon" for r in asked)
