"""CLI arguments shared by every ``eval`` command, so all benchmarks take models alike."""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, NamedTuple

from lexprobe.backends import options as checks
from lexprobe.model_names import DEFAULT_MODEL
from lexprobe.outputs import INPUT, PATH_KINDS, PathOption, guard


def _argparse_type(check: Callable[[Any], Any]) -> Callable[[str], Any]:
    """argparse's ``type`` of a declared option: its checker, a ValueError as argparse's own one-line error."""
    def parse(text: str) -> Any:
        try:
            return check(text)
        except ValueError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = getattr(check, "__name__", "value")
    return parse


#: argparse types of the one set of number checkers (``backends.options``, which ``load_scorer`` uses too): an
#: integer >= 1 (0 and negatives are one-line errors, never 'everything'), an integer >= 0 (a seed), a finite
#: number > 0 (learning rates, ...)
positive_int = _argparse_type(checks.positive_int)
non_negative_int = _argparse_type(checks.non_negative_int)
positive_float = _argparse_type(checks.positive_float)


def non_negative_float(text: str) -> float:
    """argparse type: a finite number >= 0 (thresholds, ...)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {text}")
    return value


class DefaultsHelpFormatter(argparse.HelpFormatter):
    """Appends ``(default: X)`` unless the help says its default, or for required options, flags, no default."""

    def _get_help_string(self, action):
        text = action.help or ""
        if (
            "default" in text
            or action.required
            or action.default is None or action.default is False or action.default == argparse.SUPPRESS
            or not action.option_strings
            or action.nargs == 0
        ):
            return text
        return f"{text} (default: %(default)s)"


def use_defaults_formatter(parser: argparse.ArgumentParser) -> None:
    """Give ``parser`` and every sub-parser below it ``DefaultsHelpFormatter``."""
    parser.formatter_class = DefaultsHelpFormatter
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                use_defaults_formatter(sub)


#: argparse type for --batch-size: ``auto`` or a positive integer
batch_size_arg = _argparse_type(checks.batch_size)


def path_arg(parser: argparse.ArgumentParser, *names: str, kind: str, writes: tuple[str, ...] = (),
             group: Any = None, implied: Callable[[], Any] | None = None, outputs_inside: bool = False,
             **kwargs: Any) -> argparse.Action:
    """``parser.add_argument(*names, **kwargs)`` (on ``group`` when given) for a path of ``kind`` (an
    ``outputs`` path kind), checked by ``check_declared_paths`` before the command runs. ``writes``: the files
    an output folder gets; ``implied``: the path used when the option is not given, guarded like a given one;
    ``outputs_inside``: an input folder the command's outputs may be written into."""
    action = (group or parser).add_argument(*names, **kwargs)
    declare_path(parser, action, kind, writes, implied, outputs_inside)
    return action


class DeclaredPath(NamedTuple):
    """A path option as a parser records it (``declare_path``): what ``check_declared_paths`` guards."""

    dest: str
    label: str
    kind: str
    writes: tuple[str, ...] = ()
    implied: Callable[[], Any] | None = None
    outputs_inside: bool = False
    reads: Callable[[Any], dict] | None = None
    new: bool = False


def declare_path(parser: argparse.ArgumentParser, action: argparse.Action, kind: str,
                 writes: tuple[str, ...] = (), implied: Callable[[], Any] | None = None,
                 outputs_inside: bool = False, reads: Callable[[Any], dict] | None = None, new: bool = False) -> None:
    """Record ``action`` as a path option of ``kind`` in ``parser``'s defaults (``_paths``)."""
    if kind not in PATH_KINDS:
        raise ValueError(f"a path option is one of {PATH_KINDS}, not {kind!r}")
    label = action.option_strings[0] if action.option_strings else (action.metavar or action.dest.upper())
    declared = list(parser.get_default("_paths") or [])
    declared.append(DeclaredPath(action.dest, str(label), kind, tuple(writes), implied, outputs_inside, reads, new))
    parser.set_defaults(_paths=declared)


def guarded(args: argparse.Namespace) -> dict[str, Any]:
    """The input options ``check_declared_paths`` checked, with their values (not checked again later)."""
    return {d.label: getattr(args, d.dest, None) for d in getattr(args, "_paths", None) or () if d.kind == INPUT}


def check_declared_paths(args: argparse.Namespace) -> None:
    """``outputs.guard`` on every path option the chosen command declared (before it runs)."""
    declared = []
    for d in getattr(args, "_paths", None) or ():
        value = getattr(args, d.dest, None)
        if value is None and d.implied is not None:
            value = d.implied()
        declared.append(PathOption(d.label, d.kind, value, d.writes, d.outputs_inside, d.reads, d.new))
    guard(declared)


def add_model_args(parser: argparse.ArgumentParser, default_model: str | None = DEFAULT_MODEL,
                   seed: bool = True) -> None:
    """The model options of every ``eval`` (``seed``: also ``--seed``, when the config has none)."""
    g = parser.add_argument_group("model")
    path_arg(
        parser, "--model", kind=INPUT, group=g, default=default_model, required=default_model is None,
        help="Hugging Face name or local path, `random`, a .vec/.bin vectors file, an OpenAI-compatible "
             "endpoint (http://HOST:PORT/v1; key from $LEXPROBE_API_KEY or $OPENAI_API_KEY), vllm:PATH, or "
             "llamacpp:FILE.gguf (a GGUF file run by llama.cpp at its quantisation; a bare .gguf is de-quantised "
             "to float32 and run by transformers) (docs/backends.md)"
             + (f" (default: {default_model})" if default_model else " (required)"),
    )
    from lexprobe.backends.options import MODEL_OPTIONS

    for option in MODEL_OPTIONS:  # declared once, for the CLI and load_scorer alike (backends.options)
        if option.flag is not None and (option.name != "seed" or seed):
            action = add_model_option(g, option)
            if option.name == "tokenizer":  # a folder it names is read: an input no output may overwrite (D2)
                declare_path(parser, action, INPUT)


def add_model_option(group: Any, option: Any) -> argparse.Action:
    """``option`` (a ``backends.options.ModelOption``) as an argparse option of ``group``."""
    return group.add_argument(option.flag, **model_option_args(option))


def model_option_args(option: Any) -> dict[str, Any]:
    """The default, help and choices (or checker, as argparse's ``type``) of ``option`` (a
    ``backends.options.ModelOption``): ``add_model_option``'s, and ``core.options.option``'s where a command
    declares model options as fields (``lexprobe run``)."""
    kwargs: dict[str, Any] = {"default": option.default, "help": option.help}
    if option.name == "kind":  # the kinds: the registered backends'
        from lexprobe.models import KINDS

        kwargs["choices"] = KINDS
    elif option.choices is not None:
        kwargs["choices"] = option.choices
    else:
        kwargs["type"] = _argparse_type(option.check)
    return kwargs


def model_options(args: argparse.Namespace, seed: int | None = None) -> dict[str, Any]:
    """The declared model options the command line gave (``backends.options``), ``seed`` in place of ``--seed``."""
    from lexprobe.backends.options import MODEL_OPTIONS

    given = {o.name: getattr(args, o.name) for o in MODEL_OPTIONS if o.flag and getattr(args, o.name, None) is not None}
    given["seed"] = getattr(args, "seed", 0) if seed is None else seed
    return given


def check_model_args(args: argparse.Namespace, prefer: str | None = None, seed: int | None = None) -> Any:
    """``--model`` and its options prepared (checked) once, before any data or model is loaded, kept on ``args``
    for ``scorer_from_args``."""
    from lexprobe.models import prepare_model

    args.prepared_model = prepare_model(str(args.model), parsed=True, prefer=prefer, **model_options(args, seed))
    return args.prepared_model


def scorer_from_args(args: argparse.Namespace, prefer: str | None = None, seed: int | None = None):
    """The scorer of the model ``check_model_args`` prepared (prepared here where no command did)."""
    prepared = getattr(args, "prepared_model", None) or check_model_args(args, prefer, seed)
    return prepared.load()


#: ``--overwrite``'s help, the same for every ``eval`` (``add_overwrite_arg``) and ``run`` (a declared option)
OVERWRITE_HELP = ("replace a result file that holds another run's result (another model, items or options; without it "
                  "such a file is refused, and a re-run of the same job rewrites its own result)")


def add_overwrite_arg(parser: argparse.ArgumentParser) -> None:
    """``--overwrite`` of every ``eval`` (``evaluate`` reads it)."""
    parser.add_argument("--overwrite", action="store_true", help=OVERWRITE_HELP)
