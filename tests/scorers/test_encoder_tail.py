"""The last-layer cut (``encoder_tail``) against the plain full pass of the base model."""

import pytest
import torch

from lexprobe.models import load_scorer
from lexprobe.scorers.encoder_tail import last_layer_cut, scored_hidden_states, scored_logits

# rows of different lengths (padding), a repeated row with several positions, positions in any order
ROWS = [0, 1, 1, 1, 2, 0, 3]
COLS = [3, 0, 4, 2, 1, 8, 5]
LENGTHS = [9, 5, 2, 7]


def _inputs(vocab: int, lengths=LENGTHS, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    ids = torch.randint(5, vocab, (len(lengths), max(lengths)), generator=g)
    attn = torch.zeros_like(ids)
    for row, n in enumerate(lengths):
        attn[row, :n] = 1
    return ids, attn


def _full(model, ids, attn, rows, cols):
    with torch.inference_mode():
        return model.base_model(input_ids=ids, attention_mask=attn)[0][rows, cols]


def _fast(model, ids, attn, rows, cols):
    with torch.inference_mode():
        return scored_hidden_states(model, ids, attn, rows, cols)


def _model(path, attn_implementation="sdpa"):
    from transformers import AutoModelForMaskedLM

    return AutoModelForMaskedLM.from_pretrained(path, attn_implementation=attn_implementation).eval()


@pytest.mark.parametrize("fixture", ["tiny_bert", "tiny_roberta"])
@pytest.mark.parametrize("attn_implementation", ["sdpa", "eager"])
def test_cut_equals_full_pass(fixture, attn_implementation, request):
    model = _model(request.getfixturevalue(fixture), attn_implementation)
    assert last_layer_cut(model)
    ids, attn = _inputs(model.config.vocab_size)
    rows, cols = torch.tensor(ROWS), torch.tensor(COLS)
    fast = _fast(model, ids, attn, rows, cols)
    assert fast.shape == (len(ROWS), model.config.hidden_size)
    torch.testing.assert_close(fast, _full(model, ids, attn, rows, cols), atol=1e-5, rtol=0)
    # the last layer really ran: its input differs from its output at the scored positions
    with torch.inference_mode():
        before = model.base_model(input_ids=ids, attention_mask=attn, output_hidden_states=True).hidden_states[-2]
    assert (fast - before[rows, cols]).abs().max() > 1e-2
    # the hook is gone after the call
    assert not model.base_model.encoder.layer[-1]._forward_pre_hooks


def test_cut_with_batch_of_one_and_no_padding(tiny_bert):
    model = _model(tiny_bert)
    ids, attn = _inputs(model.config.vocab_size, lengths=[6])
    rows, cols = torch.tensor([0, 0, 0]), torch.tensor([5, 1, 3])
    for mask in (attn, None):
        torch.testing.assert_close(_fast(model, ids, mask, rows, cols), _full(model, ids, mask, rows, cols),
                                   atol=1e-5, rtol=0)


def test_logits_equal_full_model_logits(tiny_roberta):
    model = _model(tiny_roberta)
    ids, attn = _inputs(model.config.vocab_size, seed=3)
    rows, cols = torch.tensor(ROWS), torch.tensor(COLS)
    with torch.inference_mode():
        got = scored_logits(model, ids, attn, rows, cols)
        want = model(input_ids=ids, attention_mask=attn).logits[rows, cols]
    torch.testing.assert_close(got, want, atol=1e-5, rtol=0)


def _tiny_distilbert():
    from transformers import DistilBertConfig, DistilBertForMaskedLM

    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=60, dim=32, n_layers=2, n_heads=2, hidden_dim=64, max_position_embeddings=64)
    return DistilBertForMaskedLM(config).eval()


def _tiny_prelayernorm_roberta():
    """Same submodule names as RoBERTa, different maths (pre-LN): must not take the cut."""
    from transformers import RobertaPreLayerNormConfig, RobertaPreLayerNormForMaskedLM

    torch.manual_seed(0)
    config = RobertaPreLayerNormConfig(vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                       intermediate_size=64, max_position_embeddings=64)
    return RobertaPreLayerNormForMaskedLM(config).eval()


def _tiny_bert_with(**options):
    """BERT configured as something the cut does not handle (transformers 5 ignores relative positions)."""
    from transformers import BertConfig, BertForMaskedLM

    def build():
        torch.manual_seed(0)
        config = BertConfig(vocab_size=60, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=64, **options)
        return BertForMaskedLM(config).eval()

    return build


@pytest.mark.parametrize("build", [_tiny_distilbert, _tiny_prelayernorm_roberta,
                                   _tiny_bert_with(position_embedding_type="relative_key")])
def test_other_architectures_fall_back_to_full_pass(build):
    model = build()
    assert not last_layer_cut(model)
    ids, attn = _inputs(60)
    rows, cols = torch.tensor(ROWS), torch.tensor(COLS)
    torch.testing.assert_close(_fast(model, ids, attn, rows, cols), _full(model, ids, attn, rows, cols),
                               atol=1e-6, rtol=0)


def test_training_mode_takes_full_pass(tiny_bert):
    model = _model(tiny_bert)
    assert last_layer_cut(model)
    model.train()
    assert not last_layer_cut(model)
    model.eval()
    assert last_layer_cut(model)


def test_scorers_report_the_cut(tiny_bert):
    from lexprobe.scorers.pll import pll_token_logprobs

    scorer = load_scorer(str(tiny_bert), kind="masked", batch_size=2)
    scorer.stats.clear()
    scorer.slot_logprobs([scorer.slot_request("", w, " is a small animal") for w in ("dog", "beckon")])
    pll_token_logprobs(scorer, [("definition of dog is", " a small animal")])
    assert scorer.stats["last_layer_cut_passes"] == scorer.stats["forward_passes"] > 0
    assert "full_encoder_passes" not in scorer.stats
