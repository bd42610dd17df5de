"""Finding, classifying and loading models.

``--model`` takes a Hugging Face name or local path (safetensors weights, never remote code), ``random``,
a static vectors file, or a GGUF file (``models.gguf``). The kind is read from the config or forced with
``--kind``; weights a checkpoint lacks are refused, never random (``loaded_weights``). A reference is
looked at once (``inspect_model``) and the load reuses what was read (``tests/test_model_loads.py``
counts the reads). This module registers lexprobe's backends (an endpoint, vLLM, and the catch-all
``load_transformers``) and imports torch only where a model loads, so the parser can ask the registry
without it.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from lexprobe.backends import Backend, backend_for, is_endpoint, is_llamacpp, is_vllm, kinds, register_backend
from lexprobe.backends.options import ATTN_IMPLEMENTATIONS, DTYPES
from lexprobe.errors import ModelError
from lexprobe.model_names import DEFAULT_ALIASES, DEFAULT_MODEL, STATIC_SUFFIXES, resolve_model_path

if TYPE_CHECKING:
    import torch


def pick_device(device: str | None = None) -> torch.device:
    import torch

    if device in (None, "", "auto"):
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except RuntimeError:
        raise ModelError(f"unknown device {device!r}; use cpu, cuda, cuda:N or auto") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ModelError(f"device {device} requested but CUDA is not available; use --device cpu")
    if dev.type == "cuda" and dev.index is not None and dev.index >= torch.cuda.device_count():
        raise ModelError(f"device {device} requested but there are {torch.cuda.device_count()} CUDA devices; "
                         "use cuda:0 or auto")
    if dev.type == "mps" and not (hasattr(torch.backends, "mps") and torch.backends.mps.is_available()):
        raise ModelError(f"device {device} (Apple GPU) requested but MPS is not available here; use --device cpu")
    if dev.type not in ("cpu", "cuda", "mps"):  # meta holds no data; xla, hpu, ... are not supported
        raise ModelError(f"device {device!r} cannot run lexprobe's models; use cpu, cuda, cuda:N, mps or auto")
    return dev


def resolve_dtype(name: str | None, device: torch.device) -> torch.dtype:
    """``auto``: bfloat16 on a GPU that supports it, float32 otherwise (CPU, older GPUs)."""
    import torch

    if name in (None, "", "float32"):
        return torch.float32
    if name == "auto":
        if device.type == "cuda" and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    table = {"bfloat16": torch.bfloat16, "float16": torch.float16}
    if name not in table:
        raise ModelError(f"unknown dtype {name!r}; use {', '.join(DTYPES)}")
    return table[name]


def check_device_map(device_map: str | None) -> None:
    """``--device-map auto`` (its value checked with the options, ``backends.options``) loads through
    accelerate, an optional dependency."""
    import importlib.util

    if device_map is not None and importlib.util.find_spec("accelerate") is None:
        raise ModelError("--device-map auto needs accelerate; run `pip install accelerate` or drop --device-map")


def input_device(model, fallback: torch.device) -> torch.device:
    """Where inputs go: the device of the input embeddings (the first shard under a device map)."""
    try:
        return model.get_input_embeddings().weight.device
    except (AttributeError, NotImplementedError):
        return fallback


def _is_sentence_transformer(path: str) -> bool:
    p = Path(path)
    return p.is_dir() and ((p / "modules.json").exists() or (p / "config_sentence_transformers.json").exists())


def _load_config(path: str):
    from transformers import AutoConfig

    from lexprobe.models.hub import check_hub_name

    check_hub_name(path)  # an unreachable Hub: one line at once (or the cached copy), not a minute of retries
    try:
        config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    except (OSError, ValueError) as err:
        where = "local path" if Path(path).exists() else "model name"
        raise ModelError(f"cannot load model {path!r} ({where}): {str(err).splitlines()[0]}; pass a local directory "
                         "with config.json, a Hugging Face name reachable from this machine, `random`, or a "
                         ".vec/.bin file") from None
    check_probabilities(config, path)
    return config


def check_probabilities(config, path: str) -> None:
    """Dropout rates and other probabilities of a config lie in [0, 1] (a NaN was a traceback deep inside)."""
    import math

    for key, value in config.to_dict().items():
        if ("dropout" in key or key.endswith("_prob")) and isinstance(value, float) \
                and not (math.isfinite(value) and 0.0 <= value <= 1.0):
            raise ModelError(f"config.json of {path!r}: {key} is {value}, not a probability in [0, 1]; fix the "
                             "model's config")


def check_model_reference(name_or_path: str) -> None:
    """A reference that can only be a local path (``./x``, ``/x``, ``~/x``, ``a/b/c``, ``x.vec``) must exist
    (not be reported as an invalid Hugging Face name)."""
    text = str(name_or_path)
    looks_local = (
        text.startswith(("/", ".", "~")) or text.count("/") >= 2 or os.sep != "/" and os.sep in text
        or text.endswith(STATIC_SUFFIXES + (".safetensors", ".gguf"))
    )
    if looks_local and not Path(text).expanduser().exists():
        raise ModelError(f"cannot load model {text}: this local path does not exist; pass an existing local "
                         "folder or vectors file, a Hugging Face name, or `random`")


@dataclass(frozen=True)
class Inspected:
    """What a ``--model`` reference is, read once (``inspect_model``); the load reuses it."""

    reference: str
    path: str  #: ``resolve_model_path``'s answer (the bundled default model, a GGUF file, or the reference)
    kind: str  #: the detected kind: masked / causal / embedding / static / random
    config: Any = None  #: the transformers configuration, where it was read (None: not read)
    gguf: dict | None = None  #: a GGUF file's header (``models.gguf.metadata``), where the reference is one


def inspect_model(name_or_path: str) -> Inspected:
    """The reference looked at once: checked, resolved, and its configuration or GGUF header read."""
    if name_or_path == "random":
        return Inspected(name_or_path, name_or_path, "random")
    from lexprobe.scorers.vector_files import PACKAGED

    if name_or_path in PACKAGED and not Path(name_or_path).exists():
        return Inspected(name_or_path, name_or_path, "static")  # packaged vectors by short name (glove-6b-50d)
    check_model_reference(name_or_path)
    path = resolve_model_path(name_or_path)
    if Path(path).is_file() and path.endswith(STATIC_SUFFIXES):
        return Inspected(name_or_path, path, "static")
    if path.lower().endswith(".gguf"):
        from lexprobe.models.gguf import check_architecture, metadata

        fields = metadata(path)
        return Inspected(name_or_path, path, check_architecture(path, fields), gguf=fields)
    if _is_sentence_transformer(path):
        return Inspected(name_or_path, path, "embedding")
    config = _load_config(path)
    return Inspected(name_or_path, path, _kind_of(config), config)


def detect_kind(name_or_path: str) -> str:
    """masked / causal / embedding / static / random, from the model's files and config."""
    return inspect_model(name_or_path).kind


def _kind_of(config) -> str:
    archs = " ".join(config.architectures or [])
    if "MaskedLM" in archs:
        return "masked"
    if "CausalLM" in archs or "LMHeadModel" in archs:
        return "causal"
    from transformers.models.auto.modeling_auto import MODEL_FOR_CAUSAL_LM_MAPPING_NAMES as CAUSAL
    from transformers.models.auto.modeling_auto import MODEL_FOR_MASKED_LM_MAPPING_NAMES as MASKED

    if not archs:
        if config.model_type in CAUSAL and config.model_type not in MASKED:
            return "causal"
        if config.model_type in MASKED:
            return "masked"
    return "embedding"  # a bare encoder: mean-pooled sentence embeddings


PICKLE_SUFFIXES = (".bin", ".pt", ".pth", ".ckpt", ".pkl")


def refuse_pickle_weights(path: str) -> None:
    """A local folder (or a sentence-transformers module folder in it) with pickled weights only is one line:
    lexprobe reads safetensors, never pickles."""
    root = Path(path)
    if not root.is_dir():
        return
    for folder in [root] + [p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")]:
        files = [p for p in folder.iterdir() if p.is_file()]
        pickles = [p.name for p in files if p.suffix in PICKLE_SUFFIXES and "tokenizer" not in p.name]
        if pickles and not any(p.suffix == ".safetensors" for p in files):
            raise ModelError(f"{folder / pickles[0]} holds pickled weights and {folder} has no .safetensors: "
                             "lexprobe loads safetensors only (convert with save_pretrained(safe_serialization="
                             "True) or model.save(..., safe_serialization=True))")


#: ordinary words every real vocabulary can encode
TOKENIZER_PROBE = "the dog runs to the house and sees a small red bird"


def check_tokenizer(tokenizer, path: str) -> None:
    """Refuse a tokenizer of special tokens only (what transformers builds for a folder without tokenizer
    files: every word unknown, the scores meaningless)."""
    special = set(getattr(tokenizer, "all_special_ids", []) or [])
    ids = tokenizer(TOKENIZER_PROBE, add_special_tokens=False)["input_ids"]
    if len(tokenizer) <= len(special) or not [i for i in ids if i not in special]:
        raise ModelError(f"the tokenizer of {path!r} cannot encode ordinary words (vocabulary of "
                         f"{len(tokenizer)} token(s), only special ones); the folder lacks its tokenizer files: "
                         "copy tokenizer.json (or vocab files) from the original model")


def _load_with_head(auto_cls, path: str, kind: str, device, dtype, attn: str | None = None,
                    device_map: str | None = None, config: Any = None):
    extra: dict[str, Any] = {} if config is None else {"config": config}  # read once, by inspect_model
    if attn:
        extra["attn_implementation"] = attn
    if device_map:
        extra["device_map"] = device_map
    try:
        model, info = auto_cls.from_pretrained(path, output_loading_info=True, trust_remote_code=False,
                                               use_safetensors=True, dtype=dtype, **extra)
    except ImportError as err:  # e.g. flash_attention_2 without the flash-attn package
        raise ModelError(f"cannot load {path!r} with --attn {attn}: {str(err).splitlines()[0]}") from None
    except ValueError as err:
        if attn and "attn" in str(err).lower():
            raise ModelError(f"model {path!r} does not support --attn {attn} ({str(err).splitlines()[0]}); "
                             f"choose another of {', '.join(ATTN_IMPLEMENTATIONS)}") from None
        raise ModelError(f"model {path!r} cannot be loaded as a {kind} LM ({str(err).splitlines()[0]}); "
                         "choose another --kind or model") from None
    except Exception as err:  # noqa: BLE001
        if type(err).__name__ != "SafetensorError" and not isinstance(err, OSError):
            raise
        if not isinstance(err, OSError):
            raise ModelError(f"cannot read the safetensors weights of {path!r} ({err}); the file is damaged "
                             "or truncated: download or save the model again") from None
        raise ModelError(f"cannot load model weights from {path!r}: {str(err).splitlines()[0]}; lexprobe loads "
                         "safetensors weights only (convert the checkpoint with save_pretrained(safe_serialization="
                         "True))") from None
    from lexprobe.loaded_weights import check_complete

    check_complete(model, info, path, kind)  # missing weights would be random: refused, for every kind
    return model if device_map else model.to(device)


@dataclass(frozen=True)
class PreparedModel:
    """A ``--model`` reference with its backend, kind and checked options, before any work; ``load()``."""

    reference: str
    backend: Backend
    kind: str | None
    options: dict[str, Any]
    #: what ``inspect_model`` read (``serves``), handed to the load so the reference is read once
    inspected: list[Inspected] = field(default_factory=list, compare=False, repr=False)

    def load(self) -> Any:
        """The scorer; while ``shared_loads`` is in force, the one loaded last when it is this model loaded the
        same way (its counters cleared: each result counts its own work)."""
        key = self.share_key() if _SHARING else None
        if key is not None and _SHARED and _SHARED[0][0] == key:
            _, scorer, counters = _SHARED[0]
            if isinstance(getattr(scorer, "stats", None), dict):  # as loaded: each result counts its own work
                scorer.stats.clear()
                scorer.stats.update(counters)
            return scorer
        if key in _FAILED:  # said once, with its details, where it first failed (a server that does not answer)
            raise ModelError(f"model {self.reference} could not be loaded (said above)")
        _SHARED.clear()  # one model at a time: the one before is let go before the next loads
        extra = {"inspected": self.inspected[0]} if self.inspected else {}
        try:
            scorer = self.backend.load(self.reference, self.kind, **self.options, **extra)
        except ModelError as err:
            if key is not None:
                _FAILED[key] = str(err)
            raise
        if key is not None:
            _SHARED.append((key, scorer, dict(getattr(scorer, "stats", None) or {})))
        return scorer

    def share_key(self) -> tuple:
        """What makes two loads the same scorer: the reference, the kind it loads as and every other option."""
        options = {k: v for k, v in self.options.items() if k != "prefer"}
        kind: Any = self.kind  # (a served model's kind does not follow what a method prefers)
        if self.backend.name == "transformers":
            if not self.inspected:
                self.inspected.append(inspect_model(self.reference))
            kind = load_kind(self.inspected[0].kind, self.kind, self.options.get("prefer"))
        return (self.reference, self.backend.name, kind, tuple(sorted((k, repr(v)) for k, v in options.items())))

    def serves(self, prefer: str | None) -> list[type] | None:
        """The request types the scorer would serve loaded as a method ``prefer``s, from the model's files and
        without loading its weights (None: not known before loading: an endpoint, vLLM)."""
        if self.backend.name != "transformers":
            return None
        if not self.inspected:
            self.inspected.append(inspect_model(self.reference))
        from lexprobe.asking.engine import served

        found = self.inspected[0]
        return served(scorer_class(load_kind(found.kind, self.kind, prefer)))


_SHARING: list[bool] = []
_SHARED: list[tuple[tuple, Any, dict]] = []  #: (share key, scorer, its counters as loaded): the last, while sharing
_FAILED: dict[tuple, str] = {}  #: share key -> why its load failed, while sharing


@contextlib.contextmanager
def shared_loads() -> Iterator[None]:
    """Inside, a model loaded the same way again is the scorer loaded before (``PreparedModel.load``): ``lexprobe
    run`` loads each model once per kind, not once per part (SmolLM2's six parts loaded it six times). One model
    is kept at a time, so a big model loaded as two kinds is never held twice. A load that failed fails again at
    once, in a short line (an unreachable server was asked, and reported in full, once per part)."""
    _SHARING.append(True)
    try:
        yield
    finally:
        _SHARING.pop()
        if not _SHARING:
            _SHARED.clear()
            _FAILED.clear()


def load_kind(detected: str, kind: str | None, prefer: str | None) -> str:
    """The kind a model is loaded as: ``--kind``, else the kind a method prefers (not for random or static
    vectors), else the detected one."""
    if kind is None and prefer is not None and detected not in ("random", "static"):
        kind = prefer
    return kind or detected


def scorer_class(kind: str) -> type:
    """The scorer class ``load_transformers`` makes for ``kind`` (what it serves is its methods)."""
    if kind == "masked":
        from lexprobe.scorers.masked import MaskedLMScorer

        return MaskedLMScorer
    if kind == "causal":
        from lexprobe.scorers.causal import CausalLMScorer

        return CausalLMScorer
    if kind == "token":
        from lexprobe.scorers.token_embeddings import TokenEmbedder

        return TokenEmbedder
    if kind == "static":
        from lexprobe.scorers.embedding import StaticVectorsScorer

        return StaticVectorsScorer
    if kind == "random":
        from lexprobe.scorers.random import RandomScorer

        return RandomScorer
    from lexprobe.scorers.embedding import SentenceEmbeddingScorer

    return SentenceEmbeddingScorer


def prepare_model(name_or_path: str, kind: str | None = None, *, parsed: bool = False, **options) -> PreparedModel:
    """``name_or_path`` with its backend, ``kind`` and ``options`` checked, not loaded. ``parsed``: the options
    are the command line's, already parsed by their declared checkers. A Hugging Face name that cannot be had
    (offline and not cached, or the Hub unreachable) is one line here, naming the close matches among the models
    at hand: every command prepares its models before any data loads."""
    known = kinds()
    if kind is not None and kind not in known:
        raise ModelError(f"unknown kind {kind!r}; choose one of {', '.join(known)}")
    backend = backend_for(str(name_or_path))
    if kind is not None and kind not in backend.kinds:
        raise ModelError(f"--kind {kind} does not apply to {backend.name} models ({name_or_path}); "
                         f"use {' or '.join(backend.kinds)}, or drop --kind")
    checked = backend.check(str(name_or_path), kind, parsed, **options)
    if backend.name == "transformers":
        from lexprobe.models.hub import check_hub_name

        check_hub_name(str(name_or_path))
    return PreparedModel(str(name_or_path), backend, kind, checked)


def load_scorer(name_or_path: str, kind: str | None = None, **options):
    """The scorer ``name_or_path`` names, made by the backend that takes it (an endpoint URL, ``vllm:PATH``,
    else ``load_transformers``); ``options`` are checked where declared (``backends.options``, as the CLI's)."""
    return prepare_model(name_or_path, kind, **options).load()


def load_transformers(name_or_path: str, kind: str | None = None, device: str | None = None, dtype: str | None = None,
                      batch_size: int | str | None = None, seed: int = 0, attn: str | None = None,
                      device_map: str | None = None, prefer: str | None = None, inspected: Inspected | None = None,
                      **options):
    """Load ``name_or_path`` as a scorer of ``kind`` (detected when None; ``prefer``: the kind a benchmark
    wants then, except for random and static vectors). ``options`` go to the token-embedding scorer.
    ``dtype="auto"``: bfloat16 on a GPU that supports it; ``batch_size="auto"``: the largest token budget
    that fits; ``device_map="auto"``: spread over the visible devices with accelerate. ``inspected``: what
    ``inspect_model`` read of it already (``PreparedModel.serves``)."""
    from lexprobe.scorers.random import RandomScorer

    if kind == "chat":
        raise ModelError(f"--kind chat applies to an endpoint URL (http://HOST:PORT/v1), not to {name_or_path!r}")
    check_device_map(device_map)  # attn and device_map values: checked by ``backends.options`` (prepare_model)
    found = inspected if inspected is not None else inspect_model(name_or_path)
    detected = found.kind
    kind = load_kind(detected, kind, prefer) if kind is None else kind
    if options and kind != "token":
        raise ModelError(f"options {', '.join(sorted(options))} apply to --kind token only")
    if kind in ("masked", "causal") and detected in ("masked", "causal") and kind != detected:
        raise ModelError(f"model {name_or_path!r} is a {detected} LM, not a {kind} LM; drop --kind or use "
                         f"--kind {detected}")
    kind = kind or detected
    if kind == "random":
        return RandomScorer(seed)
    path = found.path
    default = name_or_path.lower() in DEFAULT_ALIASES and not Path(name_or_path).exists()
    name = DEFAULT_MODEL if default else name_or_path
    if kind == "static":
        from lexprobe.scorers.embedding import StaticVectorsScorer

        return _resolved(StaticVectorsScorer.load(path, name=name), path)
    dev = pick_device(device)
    torch_dtype = resolve_dtype(dtype, dev)
    if kind == "embedding":
        from lexprobe.scorers.embedding import SentenceEmbeddingScorer

        refuse_pickle_weights(path)
        if found.config is None and (Path(path) / "config.json").is_file():
            _load_config(path)  # its probabilities checked, as for every other kind (a name's: by inspect_model)
        try:
            scorer = SentenceEmbeddingScorer.load(name, path, dev, batch_size=batch_size)
        except (OSError, ValueError) as err:
            raise ModelError(f"cannot load {path!r} as a sentence-embedding model: {str(err).splitlines()[0]}") from None
        tokenizer = getattr(getattr(scorer, "model", None), "tokenizer", None)
        if tokenizer is not None:
            check_tokenizer(tokenizer, path)
        check_sentence_transformer_weights(getattr(scorer, "model", None), path)
        return _resolved(scorer, path)
    from transformers import AutoModel, AutoModelForCausalLM, AutoModelForMaskedLM, AutoTokenizer

    from lexprobe.models.gguf import as_pretrained_dir

    gguf, path = path, as_pretrained_dir(path, found.gguf)  # a GGUF file: its de-quantised copy (made once, cached)
    config = found.config if found.config is not None and path == gguf else _load_config(path)
    try:
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True, trust_remote_code=False, config=config)
    except (OSError, ValueError) as err:
        raise ModelError(f"cannot load the tokenizer of {path!r}: {str(err).splitlines()[0]}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelError(f"model {path!r} has no fast tokenizer; lexprobe needs character offsets")
    check_tokenizer(tokenizer, path)
    if kind == "masked" and tokenizer.mask_token_id is None:
        raise ModelError(f"tokenizer of {path!r} has no mask token; it cannot be scored as a masked LM")
    head = {"token": AutoModel, "masked": AutoModelForMaskedLM, "causal": AutoModelForCausalLM}.get(kind)
    if head is None:
        raise ModelError(f"unknown kind {kind!r}")  # pragma: no cover
    model = _load_with_head(head, path, kind, dev, torch_dtype, attn, device_map, config)
    loaded: Any
    if kind == "token":
        from lexprobe.scorers.token_embeddings import TokenEmbedder

        # a GGUF file's embedder is identified by the file (revision = its SHA-256), as its causal scorer is
        loaded = TokenEmbedder(name_or_path if name == DEFAULT_MODEL else name, model, tokenizer,
                               input_device(model, dev), path=gguf, batch_size=batch_size, **options)
    elif kind == "masked":
        from lexprobe.scorers.masked import MaskedLMScorer

        loaded = MaskedLMScorer(name, model, tokenizer, input_device(model, dev), batch_size=batch_size)
    else:
        from lexprobe.scorers.causal import CausalLMScorer

        loaded = CausalLMScorer(name, model, tokenizer, input_device(model, dev), batch_size=batch_size)
    _mark_gguf(loaded, gguf, path, found.gguf)  # a GGUF file is a causal LM: the others' source is what loaded
    return _resolved(loaded, gguf)


def _resolved(scorer: Any, path: str) -> Any:
    """``scorer`` remembering what its reference resolved to, so the run record does not resolve it again."""
    scorer.resolved_path = path
    return scorer


def check_sentence_transformer_weights(model, path: str) -> None:
    """sentence-transformers hides transformers' loading report, so its transformer's folder is read once
    more with the report and checked as every other kind's (``loaded_weights``)."""
    from lexprobe.loaded_weights import check_complete

    for module in list(model or ()):
        auto = getattr(module, "auto_model", None)
        folder = getattr(auto, "name_or_path", None)
        if auto is None or not folder or not Path(folder).is_dir():
            continue
        try:
            again, info = type(auto).from_pretrained(folder, output_loading_info=True, trust_remote_code=False,
                                                     use_safetensors=True, config=auto.config)
        except (OSError, ValueError) as err:
            raise ModelError(f"cannot load {path!r} as a sentence-embedding model: {str(err).splitlines()[0]}") from None
        check_complete(again, info, path, "embedding")
        del again


def _mark_gguf(scorer, source: str, loaded: str, fields: dict | None = None) -> None:
    """Results say the weights are a de-quantised GGUF file (``run.weights``) when ``source`` was one."""
    if source != loaded:
        from lexprobe.models.gguf import weights_record

        scorer.weights = weights_record(source, fields)


# ---------------------------------------------------------------- the backends lexprobe ships: one line each
def load_endpoint(reference: str, **options) -> Any:
    from lexprobe.backends.openai_api import load

    return load(reference, **options)


def load_vllm(reference: str, **options) -> Any:
    from lexprobe.backends.vllm_local import load

    return load(reference, **options)


def load_llamacpp(reference: str, **options) -> Any:
    from lexprobe.backends.llamacpp import load

    return load(reference, **options)


register_backend(Backend(
    "openai", load_endpoint, is_endpoint, ("causal", "chat"), order=10,
    offers="an OpenAI-compatible server (vLLM, SGLang, ...): with /v1/completions prompt log-probabilities, "
           "every causal-LM method and ask-to-choose; a chat-only endpoint (--kind chat): ask-to-choose by "
           "generation only",
    takes=frozenset({"served_model", "tokenizer", "concurrency", "request_timeout", "served_dtype"}),
    label="an OpenAI-compatible endpoint", form="http://HOST:PORT/v1",
    foreign_hint="set it where the model is served, and drop it here",
    refuses=((("batch_size", "auto"), "the server batches the requests itself, --batch-size auto searches the "
              "memory of a device in this process: give the prompts per request (--batch-size N, default 8) or "
              "drop it"),)))
register_backend(Backend(
    "vllm", load_vllm, is_vllm, ("causal",), order=20,
    offers="vLLM in this process (--model vllm:PATH): every causal-LM method and ask-to-choose",
    takes=frozenset({"device", "dtype", "tokenizer", "tensor_parallel_size"}),
    label="a model run by vLLM in this process", form="vllm:PATH",
    refuses=((("batch_size", "auto"), "vLLM batches the prompts itself, --batch-size auto searches the memory "
              "of a device for transformers: give the prompts handed to vLLM at once (--batch-size N, default "
              "256) or drop it"),)))
register_backend(Backend(
    "llamacpp", load_llamacpp, is_llamacpp, ("causal",), order=30,
    offers="a GGUF file run by llama.cpp in this process at its own quantisation (--model llamacpp:FILE.gguf; "
           "needs `bash scripts/setup_llamacpp.sh`): every causal-LM method and ask-to-choose",
    takes=frozenset({"threads"}),
    label="a GGUF model run by llama.cpp in this process", form="llamacpp:FILE.gguf",
    refuses=((("batch_size", "auto"), "llama.cpp is given tokens per decode call, not a device's memory to search: "
              "give them (--batch-size N, default 512) or drop it"),)))
register_backend(Backend(
    "transformers", load_transformers, lambda reference: True,
    ("masked", "causal", "embedding", "static", "token", "random"), order=100,
    offers="models loaded in this process with transformers / sentence-transformers (safetensors, or GGUF "
           "de-quantised to float32), "
           "static vectors and the random baseline: every method of their kind",
    takes=frozenset({"device", "dtype", "attn", "device_map"}),
    label="a model loaded here with transformers", form="NAME_OR_PATH"))

#: every kind a shipped backend makes, the catch-all's first (the CLI's choices of ``--kind``)
KINDS = kinds()

os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
