"""llama.cpp in this process (``--model llamacpp:FILE.gguf``): a GGUF model scored at its own quantisation.

The transformers route de-quantises a GGUF file to float32 (``models.gguf``): right for small models, four
to eight times the file's size in memory for large ones. Here llama.cpp (``llama-cpp-python``) runs the file
as it is, with its own tokenizer and the chat template the file carries, which is how people run such models;
lexprobe's requests become token ids by the rule every causal backend follows (``CausalTokenization``).

Prompt log-probabilities: llama.cpp's server returns log-probabilities of generated tokens only (llama.cpp
issue #27174), so they are computed here from the logits of the prompt's own positions, asked for at the
scored positions only (not ``logits_all``: a logits row per position of the context, 1 MB each for a
262k vocabulary). Requests are scored in the order of their token ids, and the key/value cache keeps what
a request shares with the one before it (the chat template, the instructions, the context), so a shared
prefix is computed once. A request's answer does not depend on the others but for rounding: a prefix
computed in another split of llama.cpp's batches (docs/backends.md gives the measured difference).

llama-cpp-python is not a lexprobe requirement (PyPI has it as source only: it compiles llama.cpp);
``bash scripts/setup_llamacpp.sh`` installs it. Without it this backend is one line naming the command.
"""

from __future__ import annotations

import collections
import ctypes
import os
import weakref
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from lexprobe.errors import ModelError
from lexprobe.scorers.base import Scorer
from lexprobe.scorers.causal_tokens import CausalTokenization, cut_at_stop

INSTALL = "bash scripts/setup_llamacpp.sh"
PREFIX = "llamacpp:"
#: the context llama.cpp is given (its key/value cache is allocated for it): the model's own, at most this.
#: A 7B model's 131,072 positions would take 7 GB of cache; lexprobe's prompts are a few hundred tokens.
MAX_CONTEXT = 4096
#: what llama.cpp said while loading, for the one line of a refusal (its log otherwise stays quiet)
_LOG: collections.deque[str] = collections.deque(maxlen=400)
_CALLBACK: Any = None


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity, as a container sets it), else the machine's."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def import_llama_cpp() -> Any:
    """The ``llama_cpp`` module, or one line naming the install command. OpenMP's threads wait passively
    (unless ``OMP_WAIT_POLICY`` says otherwise): spinning, two threads on two busy cores took 17 times as long
    (53.8 s against 3.1 s for the same five requests on this project's shared 2-core machines)."""
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # read when llama.cpp's OpenMP runtime starts
    try:
        import llama_cpp
    except ImportError:
        raise ModelError(f"--model {PREFIX}FILE.gguf needs llama-cpp-python, which is not installed: run "
                         f"`{INSTALL}` (it compiles llama.cpp, a few minutes), or use `--model FILE.gguf` "
                         "(transformers, de-quantised)") from None
    except OSError as err:  # the package is there but its compiled library does not load
        raise ModelError(f"llama-cpp-python is installed but its llama.cpp library does not load ({err}); "
                         f"rebuild it: `{INSTALL}`") from None
    return llama_cpp


def _quiet_log(llama_cpp: Any) -> None:
    """llama.cpp's log kept in ``_LOG`` (errors and warnings), not printed: a refusal quotes what it said."""
    global _CALLBACK
    if _CALLBACK is not None:
        return

    @llama_cpp.llama_log_callback
    def keep(level: int, text: bytes, user_data: Any) -> None:
        if level >= 2 and text:  # ggml's levels: 2 info, 3 warn, 4 error, 5 a continued line
            _LOG.append(text.decode("utf-8", "replace"))

    _CALLBACK = keep  # a ctypes callback must outlive every call into the library
    llama_cpp.llama_log_set(keep, ctypes.c_void_p(0))


def _what_llama_said() -> str:
    """llama.cpp's first error line (its reason: a tensor out of the file's bounds, an unknown pre-tokenizer;
    the lines after it only say that loading failed)."""
    lines = [line.strip() for line in "".join(_LOG).splitlines() if line.strip()]
    errors = [line for line in lines if "error" in line.lower() or "failed" in line.lower()] or lines
    return errors[0] if errors else "no reason given"


def check_gguf_file(path: str) -> Path:
    """``path`` as an existing GGUF file (its magic bytes), else one line."""
    file = Path(path).expanduser()
    if not file.exists():
        raise ModelError(f"{PREFIX}{path}: no such file; pass the path of a .gguf model file")
    if not file.is_file():
        raise ModelError(f"{PREFIX}{path} is not a file; pass the path of a .gguf model file")
    with open(file, "rb") as f:
        magic = f.read(4)
    if magic != b"GGUF":
        raise ModelError(f"{PREFIX}{path} is not a GGUF file (it does not start with the GGUF magic bytes); "
                         "pass a .gguf model file")
    return file


def load(reference: str, kind: str | None = None, batch_size=None, threads: int | None = None, seed: int = 0,
         prefer: str | None = None, **options) -> Scorer:
    """The scorer of ``llamacpp:PATH`` (a GGUF file, a folder holding one, or a packaged short name)."""
    given = {k: v for k, v in options.items() if v is not None}
    if given:
        raise ModelError(f"options {', '.join(sorted(given))} do not apply to {PREFIX} models")
    from lexprobe.model_names import resolve_model_path

    target = reference[len(PREFIX):].strip()
    if not target:
        raise ModelError(f"--model {PREFIX} names no file; pass {PREFIX}PATH.gguf")
    path = str(check_gguf_file(resolve_model_path(target)))
    llama_cpp = import_llama_cpp()
    _quiet_log(llama_cpp)
    n_threads = int(threads or cpu_count())
    _LOG.clear()
    try:
        probe = llama_cpp.Llama(model_path=path, vocab_only=True, verbose=False)
        trained = probe.metadata.get(f"{probe.metadata.get('general.architecture')}.context_length", "")
        n_ctx = min(int(trained) if trained.isdigit() and int(trained) > 0 else MAX_CONTEXT, MAX_CONTEXT)
        probe.close()
        llm = llama_cpp.Llama(model_path=path, n_ctx=n_ctx, n_batch=512, n_ubatch=512, n_threads=n_threads,
                              n_threads_batch=n_threads, seed=seed, logits_all=False, swa_full=True, verbose=False)
    except (ValueError, RuntimeError) as err:
        said = _what_llama_said()
        raise ModelError(f"llama.cpp cannot load {path}: {said if said != 'no reason given' else err}; the file is "
                         "damaged or truncated (download it again), or its architecture or vocabulary is newer than "
                         f"this llama.cpp (llama-cpp-python {llama_cpp.__version__}: `{INSTALL}`)") from None
    return LlamaCppScorer(reference, path, llm, n_threads, n_ctx, batch_size=batch_size,
                          version=str(llama_cpp.__version__))


class GGUFTokenizer:
    """llama.cpp's tokenizer and the file's chat template behind the face ``CausalTokenization`` and the
    benchmarks use (a Hugging Face tokenizer's): ``__call__``/``encode`` with ``add_special_tokens`` (the
    special tokens the vocabulary says to add, llama.cpp's ``add_special``), special-token texts parsed as
    those tokens, ``decode``, ``apply_chat_template`` (llama-cpp-python's renderer of the file's Jinja
    template, in Transformers' sandbox and filters)."""

    def __init__(self, llm: Any, llama_cpp: Any):
        self.llm, self._llama_cpp = llm, llama_cpp
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self._vocab = vocab

        def token(get: Any) -> int | None:
            value = int(get(vocab))
            return value if value >= 0 else None

        self.bos_token_id = token(llama_cpp.llama_vocab_bos)
        self.eos_token_id = token(llama_cpp.llama_vocab_eos)
        self.pad_token_id = token(llama_cpp.llama_vocab_pad)
        self.chat_template = llm.metadata.get("tokenizer.chat_template") or None
        self.bos_token = self._text(self.bos_token_id)
        self.eos_token = self._text(self.eos_token_id)
        self.vocab_size = int(llm.n_vocab())
        self._formatter: Any = None

    def _text(self, token: int | None) -> str:
        if token is None:
            return ""
        return self._llama_cpp.llama_vocab_get_text(self._vocab, token).decode("utf-8", "replace")

    def __len__(self) -> int:
        return self.vocab_size

    def encode(self, text: str, add_special_tokens: bool = True) -> list[int]:
        return list(self.llm.tokenize(text.encode("utf-8"), add_bos=add_special_tokens, special=True))

    def __call__(self, text: str | Sequence[str], add_special_tokens: bool = True, **_: Any) -> dict[str, Any]:
        if isinstance(text, str):
            return {"input_ids": self.encode(text, add_special_tokens)}
        return {"input_ids": [self.encode(t, add_special_tokens) for t in text]}

    def decode(self, ids: Sequence[int], skip_special_tokens: bool = True) -> str:
        return self.llm.detokenize(list(ids), special=not skip_special_tokens).decode("utf-8", "replace")

    def convert_ids_to_tokens(self, token: int) -> str:
        return self._text(int(token))

    def is_end(self, token: int) -> bool:
        """A token that ends generation (end of text or of a turn: llama.cpp's end-of-generation set)."""
        return bool(self._llama_cpp.llama_vocab_is_eog(self._vocab, int(token)))

    def apply_chat_template(self, messages: Sequence[dict[str, str]], tokenize: bool = False,
                            add_generation_prompt: bool = True) -> str:
        if not self.chat_template:
            raise ValueError("the GGUF file has no tokenizer.chat_template")
        if self._formatter is None:
            from llama_cpp.llama_chat_format import Jinja2ChatFormatter

            self._formatter = Jinja2ChatFormatter(self.chat_template, eos_token=self.eos_token,
                                                  bos_token=self.bos_token,
                                                  add_generation_prompt=add_generation_prompt)
        return str(self._formatter(messages=list(messages)).prompt)


class LlamaCppScorer(Scorer, CausalTokenization):
    """``Continuation`` and ``Generate`` (``CausalTokenization``) on a llama.cpp context: one sequence whose
    key/value cache keeps the prefix a request shares with the one scored before it."""

    #: tokens per ``llama_decode`` call (llama.cpp's ``n_batch``)
    default_batch_size = 512

    def __init__(self, name: str, path: str, llm: Any, threads: int, context: int, batch_size=None,
                 version: str = ""):
        super().__init__(name)
        import llama_cpp

        self.kind = "causal"
        self.llm, self._llama_cpp, self.path = llm, llama_cpp, path
        self.batch_size = batch_size
        self.threads = threads
        self.use_tokenizer(GGUFTokenizer(llm, llama_cpp))
        self.max_length = min(int(llm.n_ctx()), context)  # llama.cpp rounds its context up to 256s
        self.n_vocab = int(llm.n_vocab())
        self._memory = llama_cpp.llama_get_memory(llm.ctx)
        self._batch = llama_cpp.llama_batch_init(max(int(self.batch_size), 1), 0, 1)
        # freed with the scorer, and at exit before the library's module is torn down (llama-cpp-python's own
        # __del__ then finds its functions gone and prints a traceback)
        weakref.finalize(self, llama_cpp.llama_batch_free, self._batch)
        weakref.finalize(self, llm.close)
        self._evaluated: list[int] = []  #: the tokens of sequence 0 now in the cache, from position 0
        from lexprobe.models.gguf import weights_record

        fields = {"general.file_type": llm.metadata.get("general.file_type"),
                  "general.name": llm.metadata.get("general.name")}
        self.weights = weights_record(path, fields, run_by="llama.cpp")
        self.backend_record = {"backend": "llamacpp", "llama_cpp_python": version, "model": path,
                               "context": self.max_length, "threads": threads,
                               "system": llama_cpp.llama_print_system_info().decode("utf-8", "replace").strip()}

    def describe(self) -> dict[str, Any]:
        """The backend and the context length change scores (a cut context); the threads do not."""
        return {**super().describe(), "backend": "llamacpp", "context": self.max_length}

    # ------------------------------------------------------------------ the one sequence and its cache
    def _keep(self, tokens: Sequence[int], limit: int) -> int:
        """Tokens of the cache kept for ``tokens``: the prefix shared with what it holds, at most ``limit``
        (positions whose logits are needed are fed again); the rest of the cache is dropped."""
        shared = 0
        for a, b in zip(self._evaluated, tokens[:limit]):
            if a != b:
                break
            shared += 1
        if shared < len(self._evaluated):
            if not self._llama_cpp.llama_memory_seq_rm(self._memory, 0, shared, -1):
                self._llama_cpp.llama_memory_clear(self._memory, True)  # a cache that cannot cut: start over
                shared = 0
            del self._evaluated[shared:]
        return shared

    def _feed(self, tokens: Sequence[int], start: int, wanted: int) -> list[np.ndarray]:
        """Decode ``tokens[start:]`` at their positions after the cached ``tokens[:start]``; the logits of
        every position from ``wanted`` on, in order (float32 rows of the vocabulary)."""
        llama_cpp, batch, step = self._llama_cpp, self._batch, max(int(self.batch_size), 1)
        rows: list[np.ndarray] = []
        for at in range(start, len(tokens), step):
            part = tokens[at:at + step]
            batch.n_tokens = len(part)
            for i, token in enumerate(part):
                batch.token[i] = int(token)
                batch.pos[i] = at + i
                batch.n_seq_id[i] = 1
                batch.seq_id[i][0] = 0
                batch.logits[i] = at + i >= wanted
            code = llama_cpp.llama_decode(self.llm.ctx, batch)
            if code != 0:
                self._llama_cpp.llama_memory_clear(self._memory, True)
                self._evaluated = []
                raise ModelError(f"llama.cpp could not decode {len(part)} tokens at position {at} of {self.name} "
                                 f"(llama_decode returned {code}: {_what_llama_said()})")
            self.count("llamacpp_decodes")
            self.count("llamacpp_tokens_fed", len(part))
            self._evaluated.extend(int(t) for t in part)
            for i in range(len(part)):
                if at + i >= wanted:
                    pointer = llama_cpp.llama_get_logits_ith(self.llm.ctx, i)
                    rows.append(np.ctypeslib.as_array(pointer, shape=(self.n_vocab,)).copy())
        return rows

    def token_logprobs(self, requests, progress: bool = False) -> list[np.ndarray]:
        """Log-probability of each continuation token: the context and the continuation but its last token fed
        (the cache's shared prefix kept), log-softmax of the logits at the scored positions."""
        def score(unique: list) -> list[np.ndarray]:
            order = sorted(range(len(unique)), key=lambda i: unique[i][0] + unique[i][1])
            out: list[np.ndarray] = [np.empty(0)] * len(unique)
            self.count("llamacpp_requests", len(unique))
            for i in order:
                ctx, cont = unique[i]
                fed = list(ctx) + list(cont[:-1])
                first = len(ctx) - 1  # the position whose logits predict the continuation's first token
                start = self._keep(fed, first)
                self.count("llamacpp_tokens_reused", start)
                rows = self._feed(fed, start, first)
                out[i] = np.asarray([_log_softmax_at(row, token) for row, token in zip(rows, cont)],
                                    dtype=np.float64)
            return out

        return self._each_pair_once(requests, score)

    def generate_ids(self, prompts: Sequence[Sequence[int]], max_new_tokens: int,
                     stop: Sequence[str] | None = None) -> list[str]:
        """Greedy continuation of each prompt (the most likely token, the first of equals), ended by the
        vocabulary's end-of-generation tokens, ``max_new_tokens``, the context's end or a ``stop`` text."""
        tok, limit = self.tokenizer, int(self.max_length or 0)
        answers: list[str] = []
        for prompt in prompts:
            fed = list(prompt) or [self.prefix_id]
            start = self._keep(fed, len(fed) - 1)
            logits = self._feed(fed, start, len(fed) - 1)[-1]
            made: list[int] = []
            while len(made) < max_new_tokens:
                token = int(np.argmax(logits))
                if tok.is_end(token):
                    break
                made.append(token)
                if stop and any(s and s in tok.decode(made) for s in stop):
                    break
                if len(made) == max_new_tokens or len(self._evaluated) >= limit:
                    break
                logits = self._feed(self._evaluated + [token], len(self._evaluated), len(self._evaluated))[-1]
            self.count("llamacpp_generated_tokens", len(made))
            answers.append(cut_at_stop(tok.decode(made), stop))
        return answers


def _log_softmax_at(logits: np.ndarray, token: int) -> float:
    row = logits.astype(np.float64)
    top = row.max()
    return float(row[token] - top - np.log(np.exp(row - top).sum()))
