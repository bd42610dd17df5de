"""The model options (``--kind``, ``--device``, ..., ``--concurrency``), declared once for the CLI and Python.

Each option has its Python name (``load_scorer``'s keyword), its CLI flag, one checker for a CLI string and a
Python value alike, its CLI default and help; a backend names those it takes (``Backend.takes``).
``check_options`` is the one place a model option is checked, so the CLI and the Python API cannot drift
apart (``load_scorer(url, concurrency=0)`` was once silently 8 workers). Torch-free: the parser imports it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from lexprobe.errors import ModelError

DTYPES = ("auto", "float32", "bfloat16", "float16")
ATTN_IMPLEMENTATIONS = ("sdpa", "flash_attention_2", "eager")
#: what a server may be serving: ``--served-dtype``, recorded as declared (lexprobe cannot see it)
SERVED_DTYPES = ("float32", "bfloat16", "float16", "unknown")


def _number_text(value: Any) -> Any:
    return value.strip() if isinstance(value, str) else value


def positive_int(value: Any) -> int:
    """An integer >= 1: ``"3"`` or ``3``; ``2.5``, ``True``, ``0`` and ``-1`` are refused (ValueError)."""
    return _integer(value, 1, "positive", "at least 1")


def non_negative_int(value: Any) -> int:
    """An integer >= 0 (a seed)."""
    return _integer(value, 0, "non-negative", "0 or more")


def _integer(value: Any, minimum: int, what: str, bound: str) -> int:
    value = _number_text(value)
    if isinstance(value, bool):
        raise ValueError(f"expected a {what} integer, got {value!r}")
    if isinstance(value, str):
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"expected a {what} integer, got {value!r}") from None
    elif isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    else:
        raise ValueError(f"expected a {what} integer, got {value!r}")
    if number < minimum:
        raise ValueError(f"must be {bound}, got {number}")
    return number


def positive_float(value: Any) -> float:
    """A finite number > 0 (seconds): ``"2.5"`` or ``2.5``; ``0``, ``-1``, ``nan``, ``inf``, ``True`` refused."""
    value = _number_text(value)
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"expected a number, got {value!r}")
    try:
        number = float(value)
    except (ValueError, OverflowError):
        raise ValueError(f"expected a number, got {value!r}") from None
    if not math.isfinite(number):
        raise ValueError(f"expected a finite number, got {value!r}")
    if number <= 0:
        raise ValueError(f"must be greater than 0, got {value}")
    return number


def batch_size(value: Any) -> int | str:
    """``auto`` or a positive integer."""
    if isinstance(value, str) and value.strip() == "auto":
        return "auto"
    return positive_int(value)


def text(value: Any) -> str:
    """A non-empty string (a name or a path)."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"expected a name or a path, got {value!r}")
    return value


def one_of(choices: Iterable[str]) -> Callable[[Any], str]:
    allowed = tuple(choices)

    def check(value: Any) -> str:
        if value not in allowed:
            raise ValueError(f"expected one of {', '.join(allowed)}, got {value!r}")
        return value

    check.choices = allowed  # type: ignore[attr-defined]  # argparse lists them
    return check


@dataclass(frozen=True)
class ModelOption:
    #: the keyword of ``load_scorer`` and the argparse ``dest``
    name: str
    #: its CLI spelling; None: a Python-only option (``prefer``, set by the benchmarks)
    flag: str | None
    #: the value (a CLI string or a Python value) -> the value to use; ValueError with the reason
    check: Callable[[Any], Any]
    #: the CLI default: passing it is the same as not passing it (an endpoint takes ``--device auto``)
    default: Any = None
    help: str = ""
    #: the scorer kinds it applies to (None: every kind of the backends that take it)
    kinds: tuple[str, ...] | None = None
    #: why it applies to those kinds only (the refusal says it)
    kinds_why: str = ""
    #: taken by every backend (``--kind``, ``--batch-size``, ``--seed``)
    common: bool = False

    @property
    def choices(self) -> tuple[str, ...] | None:
        return getattr(self.check, "choices", None)

    def spelled(self, value: Any) -> str:
        return f"{self.flag} {value}" if self.flag else f"{self.name}={value!r}"


MODEL_OPTIONS: tuple[ModelOption, ...] = (
    # the kinds are the registry's (model_names.KINDS: the CLI's choices; load_scorer checks them)
    ModelOption("kind", "--kind", text, common=True,
                help="force the scorer kind instead of detecting it from the config"),
    ModelOption("device", "--device", text, default="auto", help="auto, cpu, cuda or cuda:N (default: auto)"),
    ModelOption("dtype", "--dtype", one_of(DTYPES), default="float32",
                help="weights and activations; auto: bfloat16 on a GPU that supports it, else float32"),
    ModelOption("batch_size", "--batch-size", batch_size, common=True,
                help="initial batch size, or auto: the largest token budget that fits the device "
                     "(halves on out-of-memory; default: the scorer's)"),
    ModelOption("attn", "--attn", one_of(ATTN_IMPLEMENTATIONS),
                help="attention implementation passed to from_pretrained (default: the model's own choice)"),
    ModelOption("device_map", "--device-map", one_of(("auto",)),
                help="auto: spread a model too big for one GPU over all visible GPUs (needs accelerate)"),
    ModelOption("served_model", "--served-model", text,
                help="endpoint models: the served model's name, where the server lists several"),
    ModelOption("tokenizer", "--tokenizer", text, kinds=("causal",),
                kinds_why="a chat endpoint's server tokenises the messages itself, no token ids are sent",
                help="endpoint and vllm: models: the tokenizer (name or path) whose token ids are sent "
                     "(default: the served model's own; checked against the server once per run)"),
    ModelOption("concurrency", "--concurrency", positive_int,
                help="endpoint models: requests in flight at once (default: 8)"),
    ModelOption("request_timeout", "--request-timeout", positive_float,
                help="endpoint models: seconds one request may take, connection, answer and its whole body, "
                     "before it is retried (default: 120)"),
    ModelOption("served_dtype", "--served-dtype", one_of(SERVED_DTYPES),
                help="endpoint models: the precision the server runs the model in, as you know it (recorded "
                     "in the result's run.backend; lexprobe cannot see it; default: not recorded)"),
    ModelOption("tensor_parallel_size", "--tensor-parallel-size", positive_int,
                help="vllm: models: GPUs one model is split over (vLLM's tensor parallelism)"),
    ModelOption("threads", "--threads", positive_int,
                help="llamacpp: models: CPU threads llama.cpp computes with (default: the CPUs this process may "
                     "use)"),
    ModelOption("seed", "--seed", non_negative_int, default=0, common=True,
                help="seed for sampling and the random scorer"),
    ModelOption("prefer", None, text, common=True),
)

BY_NAME = {option.name: option for option in MODEL_OPTIONS}


def check_value(option: ModelOption, value: Any) -> Any:
    """``option``'s checker on ``value``: the checked value, or one line naming the option."""
    try:
        return option.check(value)
    except ValueError as err:
        where = f"{option.flag} (load_scorer's {option.name}=)" if option.flag else f"load_scorer's {option.name}="
        raise ModelError(f"{where}: {err}") from None


def check_options(backend: Any, reference: str, kind: str | None, options: dict[str, Any],
                  registry: Iterable[Any] = (), parsed: bool = False) -> dict[str, Any]:
    """The options ``backend`` is given, checked by their declarations; an option it does not take is refused
    naming the backends (in ``registry``) that do, unless it is None or its CLI default (dropped); a value in
    ``Backend.refuses`` is refused with its reason. Undeclared options go to the loader as they are.
    ``parsed``: the command line's values, already checked by argparse."""
    kind = kind or backend.kinds[0]
    out: dict[str, Any] = {}
    for name, value in options.items():
        option = BY_NAME.get(name)
        if option is None:
            out[name] = value
            continue
        taken = option.common or name in backend.takes
        if value is None or (not taken and value == option.default):
            if taken:
                out[name] = value
            continue
        if not parsed:
            value = check_value(option, value)
        if not taken:
            takers = [b for b in registry if name in b.takes]
            where = " and to ".join(f"{b.label} (--model {b.form})" for b in takers) or "no backend"
            raise ModelError(f"{option.spelled(value)} applies to {where}, not to {backend.label} "
                             f"(--model {reference}): {backend.foreign_hint}")
        if option.kinds is not None and kind not in option.kinds:
            raise ModelError(f"{option.spelled(value)} applies to --kind {' or '.join(option.kinds)}, not to "
                             f"--kind {kind} of {backend.label} (--model {reference}"
                             + (f"; {option.kinds_why}" if option.kinds_why else "") + f"): drop {option.flag}")
        why = dict(backend.refuses).get((name, value))
        if why is not None:
            raise ModelError(f"{option.spelled(value)} does not apply to {backend.label} (--model {reference}): {why}")
        out[name] = value
    return out
