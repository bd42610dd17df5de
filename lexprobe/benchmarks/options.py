"""CLI options derived from a benchmark's ``Config`` dataclass, and the config built back from them.

Every ``option(...)`` field becomes ``--field-name`` (``flag`` overrides), with its help,
choices, type and default; booleans are flags; a ``nested(...)`` field becomes an
argument group. ``config_from_args`` builds the same dataclass from the parsed
arguments, so ``lexprobe <benchmark> eval`` and ``evaluate(benchmark, scorer, Config(...))``
record the same config. ``--protocol`` survives as a deprecated alias of ``--recipe`` /
``--method`` with a one-line notice.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any

from lexprobe.errors import LexprobeError

PROTOCOL_ALIASES = {"paper": ("recipe", "paper"), "authors": ("recipe", "authors"), "choose": ("method", "choose")}


def _flag(f: dataclasses.Field) -> str:
    return f.metadata.get("flag") or "--" + f.name.replace("_", "-")


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return None


def add_options(parser: argparse.ArgumentParser, cls: type, title: str | None = None) -> None:
    """Arguments for every CLI field of ``cls`` (recursively for nested option groups)."""
    target: Any = parser.add_argument_group(title) if title else parser
    for f in dataclasses.fields(cls):
        md = f.metadata
        if md.get("nested"):
            add_options(parser, md["nested"], md.get("help") or f.name)
            continue
        if md.get("cli") is False:
            continue
        default = _default(f)
        kwargs: dict[str, Any] = {"dest": f.name, "help": md.get("help") or ""}
        if isinstance(default, bool) and md.get("type") is None:
            kwargs.update(action="store_true", default=default)
        else:
            kwargs.update(default=default)
            if md.get("type") is not None:
                kwargs["type"] = md["type"]
            if md.get("choices") is not None:
                kwargs["choices"] = md["choices"]
            if md.get("nargs"):
                kwargs["nargs"] = md["nargs"]
            if md.get("required"):
                kwargs.update(required=True, default=None)
        action = target.add_argument(_flag(f), **kwargs)
        if md.get("path"):  # declared once, in the field: checked by ``outputs.guard`` before the command runs
            from lexprobe.cli_common import declare_path

            declare_path(parser, action, md["path"], md.get("writes", ()))


def add_protocol_alias(parser: argparse.ArgumentParser, choices: tuple[str, ...]) -> None:
    parser.add_argument("--protocol", choices=choices, default=None,
                        help="deprecated: --protocol paper|authors is --recipe, --protocol choose is --method choose")


def config_from_args(cls: type, args: argparse.Namespace) -> Any:
    """The ``cls`` instance the parsed arguments describe (``--protocol`` mapped, with a notice)."""
    protocol = getattr(args, "protocol", None)
    if protocol is not None:
        field_name, value = PROTOCOL_ALIASES[protocol]
        print(f"lexprobe: --protocol is deprecated; use --{field_name} {value}", file=sys.stderr)
        setattr(args, field_name, value)
    config = _build(cls, args)
    check_method_options(config)
    check_nested_options(config)
    return config


def check_nested_options(config: Any) -> None:
    """The chosen method's option group checks itself (e.g. ``--template``) before data or model load."""
    method = getattr(config, "method", None)
    for f in dataclasses.fields(config):
        if f.metadata.get("nested") and applies(f, method):
            check = getattr(getattr(config, f.name), "check", None)
            if callable(check):
                check()


def _build(cls: type, args: argparse.Namespace) -> Any:
    values = {}
    for f in dataclasses.fields(cls):
        if f.metadata.get("nested"):
            values[f.name] = _build(f.metadata["nested"], args)
        elif f.metadata.get("cli") is not False and hasattr(args, f.name):
            value = getattr(args, f.name)
            values[f.name] = tuple(value) if isinstance(value, list) else value
    return cls(**values)


def owners(f: dataclasses.Field) -> tuple[str, ...]:
    """The methods a config field belongs to (``option(method=...)``); () for every method."""
    owner = f.metadata.get("method")
    return () if owner is None else ((owner,) if isinstance(owner, str) else tuple(owner))


def applies(f: dataclasses.Field, method: str | None) -> bool:
    return not owners(f) or method in owners(f)


def check_method_options(config: Any) -> None:
    """Options of another method than the chosen one, changed from their defaults: one-line error."""
    method = getattr(config, "method", None)
    for f in dataclasses.fields(config):
        if applies(f, method):
            continue
        methods = owners(f)
        value = getattr(config, f.name)
        if f.metadata.get("nested"):
            changed = [_flag(g) for g in dataclasses.fields(value) if getattr(value, g.name) != _default(g)]
        else:
            changed = [_flag(f)] if value != _default(f) else []
        if changed:
            raise LexprobeError(f"{', '.join(changed)} only apply with --method {' or '.join(methods)}; "
                                f"add {'it' if len(methods) == 1 else 'one of them'} or drop them")


def check_declared(config: Any, items_given: bool = False) -> None:
    """One line for a value its declaration refuses (not among ``choices``; not an integer its ``type`` takes),
    in nested option groups too.

    Why here: the CLI's parser refuses these from the declarations; a Python caller's config reaches
    ``evaluate`` without a parser, so ``evaluate`` checks the same declarations for every benchmark (no
    benchmark re-checks its options by hand)."""
    from lexprobe.cli_common import non_negative_int, positive_int

    for f in dataclasses.fields(config):
        value, md = getattr(config, f.name), f.metadata
        if dataclasses.is_dataclass(value):
            check_declared(value, items_given)
            continue
        choices = None if items_given and md.get("names_data") else md.get("choices")
        for v in (value if isinstance(value, tuple) else (value,)):
            if v is None and f.default is None:
                continue
            if choices is not None and v not in choices:
                raise LexprobeError(f"unknown {_flag(f)} {v!r}; use {', '.join(map(str, choices))}")
            if md.get("type") in (positive_int, non_negative_int):
                try:
                    if isinstance(v, bool) or not isinstance(v, int):
                        raise argparse.ArgumentTypeError(f"expected an integer, got {v!r}")
                    md["type"](str(v))
                except argparse.ArgumentTypeError as err:
                    raise LexprobeError(f"{_flag(f)} {err}") from None


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
    for f in dataclasses.fields(config):
        md, value = f.metadata, getattr(config, f.name)
        if md.get("nested"):
            inner = _changed_options(value)
            if inner is None:
                return None
            out += inner
            continue
        if value == _default(f) or md.get("record", True) is False:  # not recorded: changes nothing a result holds
            continue
        if md.get("path") not in (None, "input"):  # an output path: the command's own --out says where
            continue
        if md.get("cli") is False:  # no option gives it: harmless only where it changes no score (a chunk size)
            if md.get("key", True) is False:
                continue
            return None
        if isinstance(value, bool):
            out += [_flag(f)] if value else []
        elif isinstance(value, (tuple, list)):
            out += [_flag(f), *map(str, value)]
        else:
            out += [_flag(f), str(value)]
    return out
