"""Authors' code paths of WDLMPro (issue 18): GPT-2 batch shift, synset words, token counts, static drops."""

import dataclasses

import numpy as np
import pytest
import torch

from lexprobe.benchmarks.wdlmpro.dataset import Candidate, SynsetGroup
from lexprobe.benchmarks.wdlmpro.likelihood import Asker
from lexprobe.benchmarks.wdlmpro.recipe import AUTHORS, PAPER
from lexprobe.asking.engine import Engine
from lexprobe.asking.requests import Continuation, Slot
from lexprobe.models import load_scorer
from tests.benchmarks.wdlmpro.helpers import evaluate_groups
from tests.benchmarks.wdlmpro.test_scoring import score_groups


def word_token_count(scorer, kind, word, pos):
    """``Fit.tokens`` of the word in the first W2D pattern (the likelihood method's ``word_tokens``)."""
    return Engine(scorer).fit([Asker(kind).probe(pos, word)])[0].tokens


def _group(pos, items):
    cands = tuple(Candidate(f"{w.replace(' ', '_')}.{pos}.01", w, d) for w, d in items)
    return SynsetGroup(cands[0].synset, pos, cands[0].word, cands)


# ---------------------------------------------------------------- GPT-2 W2D context shift (item 5)


def _authors_lm_loop(model, tok, word, pos, definitions, batch):
    """A line-by-line port of W2D ``definition_processor.py:185-264`` and ``evaluate.py:143-151``."""
    pattern = {"n": "<DEF> is the definition of", "v": "to <DEF> is the definition of"}[pos]
    tok.pad_token = tok.pad_token or tok.eos_token
    tok.padding_side = "right"
    target_ids = tok.encode(" " + word, add_special_tokens=False)
    out = []
    for chunk in np.array_split(definitions, int(np.ceil(len(definitions) / batch))):
        contexts = []
        for option_def in chunk:
            text = option_def.capitalize() if pattern.split().index("<DEF>") == 0 else option_def
            contexts.append(pattern.replace("<DEF>", tok.convert_tokens_to_string(tok.tokenize(text)[:48])))
        inputs = tok(contexts, padding=True)
        input_ids, seq_mask = torch.tensor(inputs["input_ids"]), torch.tensor(inputs["attention_mask"])
        scores = np.ones(len(contexts))
        for target_id in target_ids:
            with torch.no_grad():
                output = model(input_ids=input_ids, attention_mask=seq_mask)[0]
            for n in range(len(contexts)):
                loc = int(seq_mask[n].sum()) - 1
                scores[n] *= float(torch.softmax(output[n, loc, :].double(), dim=0)[target_id])
                if loc == input_ids.shape[1] - 1:
                    input_ids[n] = torch.cat((input_ids[n, 1:], torch.tensor([target_id])), 0)
                else:
                    input_ids[n, loc + 1] = target_id
                    seq_mask[n, loc + 1] = 1
        out.extend(np.log(scores))
    return np.array(out)


def test_gpt2_w2d_shifts_the_longest_context_of_each_batch(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2), batch_size=2)
    defs = ["signal with the hands or nod", "a dog", "the act of singing a song in water light",
            "to make a small move", "one person"]
    word = "zebra crossing"  # not in the tiny vocabulary: many byte tokens
    assert len(scorer.tokenizer.encode(" " + word)) > 3
    group = _group("n", [(word, defs[0])] + [(f"w{i}", d) for i, d in enumerate(defs[1:])])
    recipe = dataclasses.replace(AUTHORS, causal_batch_shift=3)  # 5 definitions -> batches of 3 and 2
    got = score_groups(scorer, [group], ("w2d",), recipe=recipe)[("w2d", 0)]
    want = _authors_lm_loop(scorer.model, scorer.tokenizer, word, "n", defs, batch=3)
    np.testing.assert_allclose(got, want, atol=1e-4)
    # without the shift (the paper's formula) the longest context of each batch scores differently
    plain = score_groups(scorer, [group], ("w2d",), recipe=dataclasses.replace(recipe, causal_batch_shift=None))
    changed = set(np.flatnonzero(np.abs(plain[("w2d", 0)] - got) > 1e-6).tolist())
    # a context of n tokens in a batch W wide loses tokens once n + (word tokens so far) > W
    n_word = len(scorer.tokenizer.encode(" " + word))
    lengths = [len(scorer.tokenizer.encode(f"{d.capitalize()} is the definition of")) for d in defs]
    expect = {i for chunk in ([0, 1, 2], [3, 4]) for i in chunk
              if lengths[i] + n_word - 1 > max(lengths[j] for j in chunk)}
    assert changed == expect and {2, 3} <= expect, (lengths, changed)
    # the default batch (48) on the same group: one batch, only its longest context shifts
    whole = score_groups(scorer, [group], ("w2d",), recipe="authors")[("w2d", 0)]
    np.testing.assert_allclose(whole, _authors_lm_loop(scorer.model, scorer.tokenizer, word, "n", defs, 48), atol=1e-4)


def test_single_token_words_never_shift(tiny_gpt2):
    scorer = load_scorer(str(tiny_gpt2))
    group = _group("v", [("dog", "signal with the hands or nod"), ("wink", "signal by winking"),
                         ("bow", "bend the body")])
    assert len(scorer.tokenizer.encode(" dog")) == 1
    shifted = score_groups(scorer, [group], ("w2d",), recipe="authors")
    plain = score_groups(scorer, [group], ("w2d",), recipe=dataclasses.replace(AUTHORS, causal_batch_shift=None))
    np.testing.assert_allclose(shifted[("w2d", 0)], plain[("w2d", 0)], atol=1e-9)


# ---------------------------------------------------------------- synset words and token counts (item 8)


def test_authors_word_is_name_split_at_the_first_full_stop():
    assert AUTHORS.word_of("st._john's.n.02", "st. john's") == "st"
    assert AUTHORS.word_of("o.k..n.01", "o.k.") == "o"
    assert AUTHORS.word_of("a_cappella_singing.n.01", "a cappella singing") == "a cappella singing"
    assert PAPER.word_of("st._john's.n.02", "st. john's") == "st. john's"

    class Seen:
        """A backend serving ``Slot``: notes every word asked."""

        def __init__(self):
            self.words = []

        def slots(self, requests, progress=False):
            self.words += [r.word for r in requests]
            return [np.array([-1.0]) for _ in requests]

    group = SynsetGroup("st._john's.n.02", "n", "st. john's",
                        (Candidate("st._john's.n.02", "st. john's", "a city"), Candidate("rome.n.01", "rome", "a city")))
    for recipe, shown in (("authors", "St"), ("paper", "St. john's")):  # the first letter where it starts the input
        scorer = Seen()
        score_groups(scorer, [group], ("w2d",), recipe=recipe)
        assert shown in scorer.words


def test_token_count_is_the_word_as_scored_in_the_pattern(tiny_roberta, tiny_gpt2, tmp_path):
    from tests.tiny_models import build_tiny_gpt2

    tiny_gpt2_short = build_tiny_gpt2(tmp_path / "short", positions=4)
    roberta = load_scorer(str(tiny_roberta))
    tok = roberta.tokenizer
    # noun patterns start with the word: "Dog" (capitalised, no space) is 3 byte tokens, " dog" one
    assert len(tok.tokenize(" dog")) == 1 and len(tok.tokenize("Dog")) == 3
    assert word_token_count(roberta, Slot, "dog", "n") == 3
    assert word_token_count(roberta, Slot, "dog", "v") == 1  # "definition of _ ...": mid-sentence
    gpt2 = load_scorer(str(tiny_gpt2))
    assert word_token_count(gpt2, Continuation, "dog", "n") == len(gpt2.tokenizer.tokenize(" dog")) == 1
    zebra = len(gpt2.tokenizer.tokenize(" zebra crossing"))
    assert zebra > 3 and word_token_count(gpt2, Continuation, "zebra crossing", "v") == zebra
    # counted even where the word does not fit the model (its (group, task) is skipped, its tokens recorded)
    assert word_token_count(load_scorer(str(tiny_gpt2_short)), Continuation, "zebra crossing", "n") == zebra


# ---------------------------------------------------------------- static vectors (item 4)


def _vectors(tmp_path):
    path = tmp_path / "ft.vec"
    rows = {"dog": (1, 0, 0), "Dog": (0, 1, 0), "cat": (0, 0, 1), "fox": (1, 1, 0), "owl": (0, 1, 1),
            "bat": (1, 0, 1), "a": (1, 1, 1), "pet": (2, 0, 1), "wild": (0, 2, 1)}
    path.write_text(f"{len(rows)} 3\n" + "".join(f"{w} {' '.join(map(str, v))}\n" for w, v in rows.items()))
    return load_scorer(str(path))


def test_static_authors_drop_what_cannot_be_embedded_and_count_it(tmp_path):
    scorer = _vectors(tmp_path)
    # W2D needs a candidate's word and definition embeddable, D2W only its word (the authors' can_embed)
    ok = _group("n", [("dog", "a pet"), ("cat", "a pet cat"), ("fox", "a wild dog"), ("owl", "a bird"),
                      ("bat", "a wild bat"), ("gnu", "a wild gnu"), ("wild", "zzz qqq")])
    no_target = _group("n", [("yak", "a pet"), ("cat", "a pet"), ("fox", "a wild dog"), ("owl", "a bird"),
                             ("bat", "a pet bat")])
    too_few = _group("n", [("cat", "a pet cat"), ("dog", "a pet"), ("fox", "a wild dog"), ("gnu", "a wild gnu"),
                           ("emu", "a bird")])
    groups = [ok, no_target, too_few]
    authors = evaluate_groups(scorer, groups, recipe="authors")
    paper = evaluate_groups(scorer, groups)
    by = {(r["target"], r["task"]): r for r in authors["instances"]}
    # ok: W2D drops gnu (word) and wild (definition); D2W drops gnu only
    assert by[("dog.n.01", "w2d")]["n_candidates"] == 5 and by[("dog.n.01", "w2d")]["candidates_dropped"] == 2
    assert by[("dog.n.01", "d2w")]["n_candidates"] == 6 and by[("dog.n.01", "d2w")]["candidates_dropped"] == 1
    assert by[("yak.n.01", "w2d")]["dropped"].startswith("target word") and "gold_rank" not in by[("yak.n.01", "w2d")]
    # too_few: gnu and emu have no vectors: cat, dog, fox remain in both tasks, fewer than 5
    assert by[("cat.n.01", "w2d")]["dropped"] == by[("cat.n.01", "d2w")]["dropped"] == "fewer than 5 candidates have vectors"
    counts = authors["counts"]
    assert {k: v for k, v in counts.items() if k.startswith("dropped_")} == {
        "dropped_w2d_targets_without_vectors": 1, "dropped_w2d_groups_too_few_candidates": 1,
        "dropped_w2d_candidates_without_vectors": 2,
        "dropped_d2w_targets_without_vectors": 1, "dropped_d2w_groups_too_few_candidates": 1,
        "dropped_d2w_candidates_without_vectors": 1,
    }
    assert authors["metrics"]["w2d"]["all"]["n"] == 1 and paper["metrics"]["w2d"]["all"]["n"] == 3
    assert not any(k.startswith("dropped_") for k in paper["counts"]) and not any(
        r.get("dropped") for r in paper["instances"])
    # coverage over the distinct words and definitions (the same for both recipes here: no '.' in names)
    coverage = ("static_texts", "zero_vector_texts", "static_tokens", "skipped_oov_tokens")
    assert [paper["counts"][k] for k in coverage] == [authors["counts"][k] for k in coverage]
    assert paper["counts"]["zero_vector_texts"] == 4  # gnu, emu, yak, "zzz qqq"
    # the CLI prints the counts line; the items page does not list a dropped target as a miss
    from lexprobe.core.evaluate import counts_line
    from lexprobe.benchmarks.wdlmpro.results import failure_rows

    line = counts_line(authors)
    assert "dropped w2d targets without vectors 1" in line and "dropped w2d candidates without vectors 2" in line
    assert "zero vector texts 4" in line
    rows = failure_rows(authors)
    assert len(rows) == 2 and {r["task"] for r in rows} == {"w2d", "d2w"}  # the one group kept per task
    assert all("yak" not in r["gold"] and "cat.n.01" not in r["gold"] for r in rows)
