"""Authors' code paths of CoDA21 (issue 18): RoBERTa's lone space token, static vectors, alignment ties."""

import numpy as np
import pytest
import torch

from lexprobe.scorers.pll import released_mlm_input as authors_pll_encoding
from lexprobe.benchmarks.coda21.dataset import load_coda
from lexprobe.benchmarks.coda21.config import CodaConfig
from lexprobe.benchmarks.coda21.likelihood import match_matrices, prompt
from lexprobe.metrics.alignment import exhaustive_alignment, first_best_alignment
from lexprobe.models import load_scorer
from lexprobe.scorers.pll import encode_pair
from tests.benchmarks.coda21.helpers import evaluate, write_small

PROMPT = "a dog Definition of bkatuhla is"


# ---------------------------------------------------------------- RoBERTa PLL input (item 3)


def test_roberta_authors_input_has_a_lone_space_token_that_is_scored(tiny_roberta):
    tok = load_scorer(str(tiny_roberta)).tokenizer
    ids, positions, _ = authors_pll_encoding(tok, PROMPT, " a small animal", 48)
    tokens = tok.convert_ids_to_tokens(ids)
    # hand-checked: "... is" + "  a small animal" (two spaces): the first space is a token of its own
    assert tokens[positions[0] - 2: positions[0]] == ["Ġ", "is"]
    assert [tokens[p] for p in positions] == ["Ġ", "Ġa", "Ġs", "ma", "l", "l", "Ġanimal"]
    assert tokens[positions[-1] + 1] == "</s>"
    # the paper's input scores the definition's own tokens only, no lone "Ġ"
    p_ids, p_positions, _ = encode_pair(tok, PROMPT, " a small animal", 48)
    assert [tok.convert_ids_to_tokens(p_ids)[p] for p in p_positions] == ["Ġa", "Ġs", "ma", "l", "l", "Ġanimal"]


def test_bert_authors_input_equals_the_paper_input(tiny_bert):
    tok = load_scorer(str(tiny_bert)).tokenizer
    ids, positions, _ = authors_pll_encoding(tok, PROMPT, " a small animal", 48)
    assert [tok.convert_ids_to_tokens(ids)[p] for p in positions] == ["a", "small", "animal"]
    assert (ids, positions) == encode_pair(tok, PROMPT, " a small animal", 48)[:2]


def _authors_mlm_matrix(model, tok, group, nonce="bkatuhla"):
    """A port of ``Aligner._create_batch_for_mlm`` + ``_evaluate_contexts_for_mlm`` (aligner.py:85-164)."""
    contexts = [c.context.replace(c.word, nonce) for c in group.candidates]
    definitions = [" " + c.definition for c in group.candidates]
    inputs, starts, lengths = [], [], []
    for context in contexts:
        inp = f"{context} Definition of {nonce} is" + (" to" if group.pos == "v" else "")
        inp_len = len(tok.tokenize(inp))
        for definition in definitions:
            definition = " " + tok.convert_tokens_to_string(tok.tokenize(definition)[:48])
            lengths.append(len(tok.tokenize(definition)))
            starts.append(inp_len + 1)
            inputs.append(inp + definition)
    enc = tok(inputs, padding=True)
    unmasked, mask = torch.tensor(enc["input_ids"]), torch.tensor(enc["attention_mask"])
    scores = np.zeros(len(inputs))
    for it in range(max(lengths)):
        ids = unmasked.clone()
        targets = []
        for n, start in enumerate(starts):
            targets.append(int(ids[n, start + it]))
            ids[n, start + it] = tok.mask_token_id
        with torch.no_grad():
            out = model(input_ids=ids, attention_mask=mask)[0]
        for n, start in enumerate(starts):
            if it < lengths[n]:
                scores[n] += float(torch.log_softmax(out[n, start + it].double(), dim=0)[targets[n]])
    return scores.reshape(group.k, group.k)


def test_roberta_authors_matrix_equals_a_port_of_the_released_loop(tmp_path, tiny_roberta):
    scorer = load_scorer(str(tiny_roberta), batch_size=8)
    data = load_coda(write_small(tmp_path / "small.json"))
    group = data.groups[1]  # two candidates
    got = match_matrices([group], scorer, CodaConfig(recipe="authors"))[0]
    np.testing.assert_allclose(got, _authors_mlm_matrix(scorer.model, scorer.tokenizer, group), atol=1e-4)
    paper = match_matrices([group], scorer)[0]
    assert not np.allclose(paper, got, atol=1e-3)  # the lone space token is one more term in every pair
    assert prompt(group.candidates[0].context, group.candidates[0].word, "n", recipe="authors").endswith(" is")


# ---------------------------------------------------------------- alignment ties (item 8)


def test_first_best_treats_totals_within_1e_9_relative_as_ties():
    # two alignments whose totals differ by 4e-12 (relative 1e-12): the released enumeration
    # (utils.py:22, strict >) keeps the larger, identity-second one; lexprobe's first_best calls it a tie
    eps = 4e-12
    scores = np.array([[1.0, 1.0], [1.0 + eps, 1.0]])  # identity 2.0, swap 2.0 + 4e-12
    assert exhaustive_alignment(scores).tolist() == [1, 0]  # exact float comparison: the swap wins
    assert first_best_alignment(scores).tolist() == [0, 1]  # within tolerance: the first in itertools order
    assert first_best_alignment(scores, tol=0.0).tolist() == [1, 0]


# ---------------------------------------------------------------- static vectors (item 4)


def test_static_vectors_authors_skip_groups_they_cannot_embed(tmp_path):
    from lexprobe.benchmarks.coda21.tables import format_result
    from lexprobe.core.evaluate import counts_line

    data = load_coda(write_small(tmp_path / "small.json"))
    vec = tmp_path / "v.vec"
    # cased vocabulary; no word of the verb definition "move very slightly" is in it
    words = ["his", "horse", "dust", "and", "a", "white", "marble", "The", "concept", "an", "idea", "of",
             "feathers", "material", "rock", "This", "was", "suggestion", "they", "danced", "the", "leaves", "turn",
             "in", "motion", "wind"]
    vec.write_text(f"{len(words)} 2\n" + "".join(f"{w} {i % 3} {i % 5 + 1}\n" for i, w in enumerate(words)))
    scorer = load_scorer(str(vec))
    paper = evaluate(data, scorer)
    authors = evaluate(data, scorer, recipe="authors")
    assert paper["metrics"]["alignment"]["v"]["n"] == 1 and authors["metrics"]["alignment"]["v"]["n"] == 0
    assert len(authors["skipped"]) == 1 and "get_mean_emb raises" in authors["skipped"][0]["reason"]
    assert paper["counts"]["skipped_groups_without_vectors"] == 0
    assert authors["counts"]["skipped_groups_without_vectors"] == authors["counts"]["skipped_groups"] == 1
    # of the 16 distinct texts only "move very slightly" has no token with a vector (paper: cosine 0)
    assert paper["counts"]["zero_vector_texts"] == 1 and paper["counts"]["static_texts"] == 16
    assert authors["counts"]["zero_vector_texts"] == 0  # (its group is skipped)
    assert "zero vector texts 1" in counts_line(paper) and "skipped oov tokens" in counts_line(paper)
    assert "skipped groups without vectors 1" in counts_line(authors)
    assert "Verbs acc." in format_result(paper) and "Verbs acc." not in format_result(authors)  # none scored


# ---------------------------------------------------------------- synset words in the builder (item 8)


def test_builder_shared_word_rule_uses_the_authors_split_under_authors():
    from lexprobe.benchmarks.coda21.builder import BuildConfig, distinct_words, synset_word

    assert synset_word("st._john's.n.02") == "st._john's" and synset_word("st._john's.n.02", "authors") == "st"
    names = ["st._augustine_grass.n.01", "st._john's.n.02", "native.n.01", "native.n.02"]
    assert distinct_words(names) == ["st._augustine_grass.n.01", "st._john's.n.02", "native.n.01"]
    assert distinct_words(names, "authors") == ["st._augustine_grass.n.01", "native.n.01"]
    with pytest.raises(Exception, match="unknown word rule"):
        BuildConfig(word_rule="x").validate()
