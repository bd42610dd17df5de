"""A config class compiled once into its options: the CLI flags, the recorded config, the resume key, the
declared paths and the checks all read the same ``FieldSpec``s.

Every ``option(...)`` field of a benchmark's ``Config`` (``option`` below) becomes ``--field-name``
(``flag`` overrides), with its help, choices, type, default and metavar; booleans are flags; a ``nested(...)``
field becomes an argument group. A command's options are such a dataclass too (``add_commands``: the command
is a function of it), so the benchmarks' sub-commands and ``lexprobe run|report|compare|data|human|export|
check-endpoint`` take their flags, checks and declared paths from the same declarations. ``spec(cls)`` reads
the dataclass's fields once (cached per class) and everything below reads the spec: ``add_options`` (the
parser), ``config_from_args`` (the same dataclass back from the parsed arguments, so ``lexprobe <benchmark>
eval`` and ``evaluate(benchmark, scorer, Config(...))`` record the same config), ``check_declared`` /
``check_method_options`` / ``check_nested_options`` (what the declarations refuse), ``eval_command`` (a config
back to its command line), and ``recorded`` / ``key_options`` / ``declared_paths`` (what a result records,
what the resume key holds, what ``outputs.guard`` checks).

Why one compiled spec: the fields were walked with ``dataclasses.fields`` in nine places, each reading the
declaration's metadata its own way (a default from a factory here, a flag spelled there); a declaration now
means one thing everywhere.
"""

from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Callable, Iterator

from lexprobe.errors import LexprobeError


@dataclass(frozen=True)
class FieldSpec:
    """One config field as every reader of options sees it (compiled from ``option(...)`` / ``nested(...)``)."""

    name: str
    flag: str  #: its CLI spelling (``--field-name`` unless declared)
    short: str | None = None  #: a one-letter spelling besides ``flag`` (``-v``)
    help: str = ""
    default: Any = None  #: the default value (a factory's, made once: config values are immutable)
    #: the allowed values, or a function that gives them when the parser is built (``allowed``)
    choices: Any = None
    argtype: Callable | None = None  #: argparse's ``type`` (the value's parser)
    nargs: str | None = None
    metavar: str | None = None  #: how the help names the value (``DIR``, ``RESULT.json``)
    required: bool = False
    cli: bool = True  #: offered on the command line
    record: bool = True  #: written to the result's ``config``
    key: bool = True  #: part of the resume key (only what is recorded)
    methods: tuple[str, ...] = ()  #: the methods it belongs to; (): every method
    path: str | None = None  #: ``outputs.INPUT`` / ``OUTPUT`` / ``IMAGE`` / ``OUTPUT_DIR``
    writes: tuple[str, ...] = ()  #: the files an ``OUTPUT_DIR`` path's command writes inside it
    outputs_inside: bool = False  #: an ``INPUT`` folder the command's outputs may be written into
    #: an ``INPUT``'s reader reads these beside its value: ``path -> {what: path}`` (``outputs.PathOption.reads``)
    reads: Callable[[Any], dict] | None = None
    new: bool = False  #: an ``OUTPUT_DIR`` written whole: new or empty, not a link (``outputs.whole_folder``)
    names_data: bool = False  #: names the data to load (not checked against ``choices`` for given items)
    group: type | None = None  #: a ``nested`` option group: its dataclass (``spec(group)`` its fields)
    #: a path read when the option is not given (a default file): guarded like a given one
    implied: Callable[[], Any] | None = None

    @property
    def positional(self) -> bool:
        """Given without a flag (``option(flag="files")``): a command's operands."""
        return not self.flag.startswith("-")

    def allowed(self) -> Any:
        """The choices; a callable's, computed now.

        Why a callable: some choices are a registry's (the benchmarks with people's items, the exports), known
        only once the registry is filled, and this layer may not import the registries above it: the command
        that declares the option passes the registry's function, called when its parser is built."""
        return self.choices() if callable(self.choices) else self.choices

    def applies(self, method: str | None) -> bool:
        """Whether the field belongs to ``method`` (``option(method=...)``)."""
        return not self.methods or method in self.methods


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return None


@lru_cache(maxsize=None)
def spec(cls: Any) -> tuple[FieldSpec, ...]:
    """The fields of the config dataclass ``cls``, compiled once (the one reading of its declarations): what
    ``option``/``nested`` declared, with the field's name, its flag and its default (a plain field: every
    default of ``FieldSpec``)."""
    out = []
    for f in dataclasses.fields(cls):
        declared = f.metadata.get("spec") or FieldSpec(name=f.name, flag="")
        out.append(dataclasses.replace(declared, name=f.name, flag=declared.flag or "--" + f.name.replace("_", "-"),
                                       default=_default(f)))
    return tuple(out)


def values(config: Any) -> Iterator[tuple[FieldSpec, Any]]:
    """(field, value) of every field of ``config``, in declaration order."""
    for f in spec(config.__class__):
        yield f, getattr(config, f.name)


def field_named(cls: type, name: str) -> FieldSpec | None:
    return next((f for f in spec(cls) if f.name == name), None)


def add_options(parser: argparse.ArgumentParser, cls: type, title: str | None = None) -> None:
    """Arguments for every CLI field of ``cls`` (an argument group for each nested option group)."""
    target: Any = parser.add_argument_group(title) if title else parser
    for f in spec(cls):
        if f.group is not None:
            add_options(parser, f.group, f.help or f.name)
            continue
        if not f.cli:
            continue
        kwargs: dict[str, Any] = {"help": f.help, "default": f.default, **({} if f.positional else {"dest": f.name})}
        if isinstance(f.default, bool) and f.argtype is None:
            kwargs["action"] = "store_true"
        else:
            kwargs.update({k: v for k, v in (("type", f.argtype), ("choices", f.allowed()), ("nargs", f.nargs),
                                             ("metavar", f.metavar)) if v is not None})
            if f.required and not f.positional:
                kwargs.update(required=True, default=None)
        action = target.add_argument(*filter(None, (f.short, f.flag)), **kwargs)
        if f.path:  # declared once, in the field: checked by ``outputs.guard`` before the command runs
            from lexprobe.core.cli_common import declare_path

            declare_path(parser, action, f.path, f.writes, implied=f.implied, outputs_inside=f.outputs_inside,
                         reads=f.reads, new=f.new)


def add_commands(sub: Any, commands: dict[str, tuple[type, str, Callable[[Any], int]]]) -> None:
    """A sub-command per ``{name: (options dataclass, help, command)}``: its options from the declarations, and
    the command called with the dataclass the parsed arguments describe."""
    for name, (options, text, command) in commands.items():
        parser = sub.add_parser(name, help=text)
        add_options(parser, options)
        parser.set_defaults(func=lambda args, options=options, command=command: command(config_from_args(options,
                                                                                                         args)))


def add_command_group(sub: Any, name: str, help: str, commands: dict[str, tuple[type, str, Callable[[Any], int]]],
                      metavar: str = "COMMAND", description: str | None = None) -> None:
    """``lexprobe NAME COMMAND ...``: a command made of the sub-commands ``commands`` (``add_commands``)."""
    parser = sub.add_parser(name, help=help, description=description)
    group = parser.add_subparsers(dest=f"{name}_command", metavar=metavar)
    group.required = True
    add_commands(group, commands)


def config_from_args(cls: type, args: argparse.Namespace, checked: bool = True) -> Any:
    """The ``cls`` instance the parsed arguments describe, its method's options checked (``checked=False``: left
    to the caller, ``core.evaluate.prepare``, which checks a run's config once)."""
    config = _build(cls, args)
    if checked:
        check_method_options(config)
        check_nested_options(config)
    return config


def _build(cls: type, args: argparse.Namespace) -> Any:
    built = {}
    for f in spec(cls):
        if f.group is not None:
            built[f.name] = _build(f.group, args)
        elif f.cli and hasattr(args, f.name):
            value = getattr(args, f.name)
            built[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**built)


def option_value(cls: type, name: str, given: str | tuple[str, ...] | list[str] | None, what: str = "") -> Any:
    """The value of ``cls``'s field ``name`` from the words ``given`` on a command line (None: its default), read
    through the field's declaration as the parser of ``cls``'s own command reads it (its ``nargs``, ``type`` and
    ``choices``); one ``LexprobeError`` line otherwise (``what``: whose option, in the line). Why: a command that
    takes another command's option (``export hf wsd --pos`` takes ``wsd eval --pos``) declares it once, there."""
    import argparse

    f = field_named(cls, name)
    if f is None and given is not None:
        raise LexprobeError(f"{what or cls.__name__} takes no --{name.replace('_', '-')}")
    if f is None or given is None:
        return None if f is None else f.default
    words = (given,) if isinstance(given, str) else tuple(given)
    whose = f" of {what}" if what else ""
    if not words or (f.nargs is None and len(words) != 1):
        raise LexprobeError(f"{f.flag}{whose} takes {'one value' if f.nargs is None else 'values'}, got "
                            f"{' '.join(words) or 'none'}")
    choices = f.allowed()
    values = []
    for word in words:
        try:
            value = f.argtype(word) if f.argtype is not None else word
        except (argparse.ArgumentTypeError, ValueError) as err:
            raise LexprobeError(f"{f.flag}{whose}: {err}") from None
        if choices is not None and value not in choices:
            raise LexprobeError(f"unknown {f.flag} {word!r}{' for ' + what if what else ''}; use "
                                f"{', '.join(map(str, choices))}")
        values.append(value)
    return tuple(values) if f.nargs else values[0]


def check_nested_options(config: Any) -> None:
    """The chosen method's option group checks itself (e.g. ``--template``) before data or model load."""
    method = getattr(config, "method", None)
    for f, value in values(config):
        if f.group is not None and f.applies(method):
            check = getattr(value, "check", None)
            if callable(check):
                check()


def check_method_options(config: Any) -> None:
    """Options of another method than the chosen one, changed from their defaults: one-line error."""
    method = getattr(config, "method", None)
    for f, value in values(config):
        if f.applies(method):
            continue
        if f.group is not None:
            changed = [g.flag for g, inner in values(value) if inner != g.default]
        else:
            changed = [f.flag] if value != f.default else []
        if changed:
            raise LexprobeError(f"{', '.join(changed)} only apply with --method {' or '.join(f.methods)}; "
                                f"add {'it' if len(f.methods) == 1 else 'one of them'} or drop them")


def check_declared(config: Any, items_given: bool = False) -> None:
    """One line for a value its declaration refuses (not among ``choices``; not an integer its ``type`` takes),
    in nested option groups too.

    Why here: the CLI's parser refuses these from the declarations; a Python caller's config reaches
    ``evaluate`` without a parser, so ``evaluate`` checks the same declarations for every benchmark (no
    benchmark re-checks its options by hand)."""
    from lexprobe.core.cli_common import non_negative_int, positive_int

    for f, value in values(config):
        if f.group is not None:
            check_declared(value, items_given)
            continue
        choices = None if items_given and f.names_data else f.allowed()
        for v in (value if isinstance(value, tuple) else (value,)):
            if v is None and f.default is None:
                continue
            if choices is not None and v not in choices:
                raise LexprobeError(f"unknown {f.flag} {v!r}; use {', '.join(map(str, choices))}")
            if f.argtype in (positive_int, non_negative_int):
                try:
                    if isinstance(v, bool) or not isinstance(v, int):
                        raise argparse.ArgumentTypeError(f"expected an integer, got {v!r}")
                    f.argtype(str(v))
                except argparse.ArgumentTypeError as err:
                    raise LexprobeError(f"{f.flag} {err}") from None


def eval_command(bench: Any, config: Any, model: str | None, kind: str | None, out: Any) -> str | None:
    """The ``lexprobe <benchmark> eval`` command line that evaluates the same items the same way as ``config``:
    every option that differs from its default, from the declarations (``--flag value``, a flag for a boolean,
    several values for ``nargs``), then ``--model``, ``--kind`` and ``--out``. None when the config holds a value
    no command-line option can give (an option declared ``cli=False`` set away from its default, unless it changes
    no score: ``key=False``, a chunk size; ``record=False`` ones change nothing a result holds), or there is no
    model reference.

    Why: ``lexprobe run`` draws its samples itself; its results record this command (``run.reproduce``) so a
    reader re-scores exactly those items with ``eval`` (``tests/test_run.py`` runs it and compares the items)."""
    import shlex

    if not model:
        return None
    args = _changed_options(config)
    if args is None:
        return None
    args += ["--model", str(model)] + (["--kind", kind] if kind else []) + (["--out", str(out)] if out else [])
    return shlex.join(["lexprobe", bench.meta.name, "eval", *args])


def _changed_options(config: Any) -> list[str] | None:
    out: list[str] = []
    for f, value in values(config):
        if f.group is not None:
            inner = _changed_options(value)
            if inner is None:
                return None
            out += inner
            continue
        if value == f.default or not f.record:  # not recorded: changes nothing a result holds
            continue
        if f.path not in (None, "input"):  # an output path: the command's own --out says where
            continue
        if not f.cli:  # no option gives it: harmless only where it changes no score (a chunk size)
            if not f.key:
                continue
            return None
        if isinstance(value, bool):
            out += [f.flag] if value else []
        elif isinstance(value, (tuple, list)):
            out += [f.flag, *map(str, value)]
        else:
            out += [f.flag, str(value)]
    return out


# --- declaring a config's fields, and what a result and the resume key hold of it ---------------------------
def option(default: Any = None, help: str = "", *, choices: Any = None, type: Callable | None = None,
           flag: str | None = None, short: str | None = None, cli: bool = True, record: bool = True, key: bool = True,
           nargs: str | None = None, metavar: str | None = None, required: bool = False,
           method: str | tuple[str, ...] | None = None,
           factory: Callable | None = None, input: bool = False, path: str | None = None,
           writes: tuple[str, ...] = (), outputs_inside: bool = False, names_data: bool = False,
           implied: Callable[[], Any] | None = None, reads: Callable[[Any], dict] | None = None,
           new: bool = False) -> Any:
    """A config field with what the CLI needs to offer it.

    ``record``: written to the result's ``config`` (False for output options such as a plot
    path); ``key``: part of the resume key (False for what cannot change a score, e.g. a data
    path: the items digest covers the data); ``method``: the method (or methods) the option belongs
    to (given with another method it is an error, not silently ignored); ``path``: what the value
    is when it names a file: ``outputs.INPUT`` (read: no output may overwrite it, a FIFO is
    refused), ``outputs.OUTPUT`` or ``outputs.OUTPUT_DIR`` (written: checked writable before any
    work; ``writes``: the files an ``OUTPUT_DIR`` gets; ``outputs_inside``: an ``INPUT`` folder the outputs may
    be written into, ``report RESULTS --out RESULTS/report``); ``outputs.guard`` derives every check from it.
    ``input=True`` is ``path=INPUT``. ``names_data``: the option names the data to load (sense ranking's
    ``--corpus``); given items a caller loaded itself (``evaluate(..., items=...)``), it only names them, so its
    ``choices`` are not checked. ``implied``: the path read when a path option is not given (a default file),
    guarded like a given one. ``reads``: what an ``INPUT``'s reader reads beside its value (``path -> {what: path}``:
    the gold key file beside a WSD ``.data.xml``), guarded as inputs too; ``new``: an ``OUTPUT_DIR`` written whole
    (new or empty, not a link). ``flag`` without dashes (``flag="files"``): a positional operand; ``short``: a
    one-letter spelling besides it (``-v``). ``choices``: the allowed values, or a function giving them when the
    parser is built (``FieldSpec.allowed``).
    """
    from lexprobe.outputs import INPUT, PATH_KINDS

    path = INPUT if input and path is None else path
    if path is not None and path not in PATH_KINDS:
        raise ValueError(f"option(path=...) is one of {PATH_KINDS}, not {path!r}")
    declared = FieldSpec(name="", flag=flag or "", short=short, help=help, choices=choices, argtype=type, nargs=nargs,
                         metavar=metavar, required=required, cli=cli, record=record, key=key and record,
                         methods=_methods(method), path=path, writes=tuple(writes), outputs_inside=outputs_inside,
                         names_data=names_data, implied=implied, reads=reads, new=new)
    metadata = {"spec": declared}  # the name, the flag's default spelling and the default: ``spec``
    if factory is not None:
        return field(default_factory=factory, metadata=metadata)
    return field(default=default, metadata=metadata)


def nested(cls: type, help: str = "", method: str | None = None) -> Any:
    """A config field holding another option dataclass (e.g. the choose options), offered as a group."""
    declared = FieldSpec(name="", flag="", help=help, methods=_methods(method), group=cls)
    return field(default_factory=cls, metadata={"spec": declared})


def _methods(method: str | tuple[str, ...] | None) -> tuple[str, ...]:
    return () if method is None else (method,) if isinstance(method, str) else tuple(method)


def recorded(config: Any) -> dict:
    """The config as the result records it: every field with ``record`` (nested ones as dicts)."""
    return {f.name: recorded(value) if dataclasses.is_dataclass(value) else _plain(value)
            for f, value in values(config) if f.record}


def key_options(config: Any) -> dict:
    """The config fields that change scores (``key``), for the resume key."""
    return {f.name: key_options(value) if dataclasses.is_dataclass(value) else _plain(value)
            for f, value in values(config) if f.key}


def declared_paths(config: Any) -> list:
    """The config's path options with their values (``option(path=...)``, nested groups too), as
    ``outputs.PathOption``s: what ``outputs.guard`` checks and ``evaluate`` keeps from being overwritten."""
    from lexprobe.outputs import PathOption

    out = []
    for f, value in values(config):
        if f.group is not None:
            out += declared_paths(value)
        elif f.path:
            out.append(PathOption(f.flag, f.path, value, f.writes, f.outputs_inside, f.reads, f.new))
    return out


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float) and value == float("inf"):
        return "inf"
    return value
