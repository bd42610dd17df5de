"""vLLM in this process (``--model vllm:PATH_OR_NAME``): ``vllm.LLM`` with ``prompt_logprobs``, for GPU nodes.

The same requests as the server path (token ids from the local tokenizer), without HTTP. vLLM is not a
lexprobe requirement (it pins its own torch): without it this backend is one line naming the install.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from lexprobe.batching import chunks
from lexprobe.errors import ModelError
from lexprobe.model_names import resolve_model_path
from lexprobe.scorers.base import Scorer
from lexprobe.scorers.causal_tokens import CausalTokenization, cut_at_stop


def load(reference: str, kind: str | None = None, batch_size=None, dtype: str | None = None,
         tensor_parallel_size: int | None = None, tokenizer: str | None = None, device: str | None = None,
         seed: int = 0, prefer: str | None = None, **options) -> Scorer:
    given = {k: v for k, v in options.items() if v is not None}
    if given:
        raise ModelError(f"options {', '.join(sorted(given))} do not apply to vllm: models")
    try:
        import vllm
    except ImportError:
        raise ModelError("--model vllm:... needs vLLM in this environment: `pip install vllm` (GPU) or "
                         "`bash scripts/setup_vllm.sh` (CPU, its own venv); or serve the model with vLLM and pass "
                         "--model http://HOST:PORT/v1") from None
    path = reference[len("vllm:"):]
    path = resolve_model_path(path)
    llm = vllm.LLM(model=path, tokenizer=tokenizer or path, dtype=dtype if dtype not in (None, "auto") else "auto",
                   tensor_parallel_size=int(tensor_parallel_size or 1), seed=seed, trust_remote_code=False,
                   enforce_eager=device == "cpu")
    return VLLMScorer(path, llm, llm.get_tokenizer(), batch_size=batch_size, version=vllm.__version__)


class VLLMScorer(Scorer, CausalTokenization):
    """``Continuation`` and ``Generate`` requests (``CausalTokenization``) from a ``vllm.LLM`` (vLLM batches
    internally)."""

    default_batch_size = 256  # prompts handed to vLLM at once

    def __init__(self, name: str, llm: Any, tokenizer: Any, batch_size=None, version: str = ""):
        super().__init__(name)
        self.kind = "causal"
        self.llm, self.batch_size = llm, batch_size
        self.use_tokenizer(tokenizer)
        self.max_length = int(llm.llm_engine.model_config.max_model_len)
        self.path = name
        self.backend_record = {"backend": "vllm", "vllm": version, "model": name}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "backend": "vllm"}

    def token_logprobs(self, requests, progress: bool = False) -> list[np.ndarray]:
        """The prompt log-probabilities of each continuation; identical requests asked once."""
        from vllm import SamplingParams, TokensPrompt

        params = SamplingParams(max_tokens=1, prompt_logprobs=0, temperature=0.0)

        def score(unique: list) -> list[np.ndarray]:
            self.count("vllm_requests", len(unique))
            scored = []
            for batch in chunks(unique, int(self.batch_size)):
                outs = self.llm.generate([TokensPrompt(prompt_token_ids=list(c + x)) for c, x in batch], params,
                                         use_tqdm=progress)
                for (ctx, cont), out in zip(batch, outs):
                    ids = list(ctx + cont)
                    scored.append(np.asarray([out.prompt_logprobs[p][ids[p]].logprob
                                              for p in range(len(ctx), len(ids))], dtype=np.float64))
            return scored

        return self._each_pair_once(requests, score)

    def generate_ids(self, prompts: Sequence[Sequence[int]], max_new_tokens: int,
                     stop: Sequence[str] | None = None) -> list[str]:
        """Greedy continuation of each prompt's token ids (``CausalTokenization.generations``)."""
        from vllm import SamplingParams, TokensPrompt

        params = SamplingParams(max_tokens=int(max_new_tokens), temperature=0.0, stop=list(stop) if stop else None)
        outs = self.llm.generate([TokensPrompt(prompt_token_ids=list(x)) for x in prompts], params, use_tqdm=False)
        return [cut_at_stop(o.outputs[0].text, stop) for o in outs]
