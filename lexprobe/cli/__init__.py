"""Command-line entry point: ``lexprobe <benchmark> <command> ...`` and ``lexprobe run``.

Each benchmark package contributes its sub-commands through a ``register(subparsers)``
function in its ``cli`` module, so this file only wires them together.
"""

from __future__ import annotations

import argparse
import errno
import importlib.abc
import logging
import os
import sys
from dataclasses import dataclass
from types import ModuleType

from lexprobe.core.options import add_options, option
from lexprobe.errors import LexprobeError

#: commands that are not benchmarks: command -> (the group whose module registers it, one-line help).
#: Benchmarks come from ``benchmarks.shipped`` (their ``eval`` derived from their ``Config``).
COMMANDS = {
    "run": ("run", "run every benchmark on the embedded default model (a quick sample)"),
    "report": ("report", "write an HTML/Markdown/LaTeX report of result files"),
    "compare": ("report", "compare two runs item by item (paired intervals and exact tests)"),
    "data": ("data", "list, fetch, import and verify the datasets the benchmarks use"),
    "models": ("models", "the models at hand (short names, cached, local), their kind, size, revision and paths"),
    "human": ("human", "human baselines: a local web page where people take the models' items"),
    "check-endpoint": ("check-endpoint", "score a probe set through an endpoint and in process: do they "
                                         "agree? (a server's precision changes scores)"),
    "export": ("export", "the benchmarks as Hugging Face datasets or lm-evaluation-harness tasks"),
}


@dataclass(frozen=True)
class Main:
    """The options before the command (``main`` reads them; every command sees them)."""

    traceback: bool = option(False, "show full tracebacks on errors")
    verbose: bool = option(False, "log more detail", short="-v")


def command_module(group: str) -> ModuleType:
    """The module with ``register(subparsers)`` of a ``COMMANDS`` group, imported only when its command runs
    (``lexprobe --help`` stays fast)."""
    if group == "run":
        from lexprobe.cli import run

        return run
    if group == "report":
        from lexprobe.report import cli as report_cli

        return report_cli
    if group == "data":
        from lexprobe.cli import data as data_cli

        return data_cli
    if group == "models":
        from lexprobe.cli import models as models_cli

        return models_cli
    if group == "human":
        from lexprobe.human import cli as human_cli

        return human_cli
    if group == "check-endpoint":
        from lexprobe.cli import check_endpoint

        return check_endpoint
    if group == "export":
        from lexprobe.export import cli as export_cli

        return export_cli
    raise ValueError(f"no command group {group!r}")  # pragma: no cover (COMMANDS names the groups above)


def _chosen_command(argv: list[str] | None) -> str | None:
    for token in argv or ():
        if not token.startswith("-"):
            return token
    return None


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    """The full parser (``argv`` None), or one whose only fully built command is the one in ``argv``."""
    import lexprobe.benchmarks.shipped  # noqa: F401  (registers the shipped benchmarks)
    from lexprobe.core.cli_common import use_defaults_formatter
    from lexprobe.core.commands import register_benchmark
    from lexprobe.core.registry import all_benchmarks

    parser = argparse.ArgumentParser(
        prog="lexprobe",
        description="Benchmarks of word-meaning understanding: WDLMPro, CoDA21, CWE sense ranking.",
    )
    add_options(parser, Main)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    chosen = _chosen_command(argv) if argv is not None else None
    for bench in all_benchmarks():
        names = (bench.meta.name, *bench.meta.aliases)
        if argv is not None and chosen not in names:
            for name in names:
                sub.add_parser(name, help=bench.meta.help if name == names[0] else f"alias of {names[0]}",
                               add_help=False)
            continue
        register_benchmark(sub, bench)
    chosen_group = COMMANDS[chosen][0] if chosen in COMMANDS else None
    registered: set[str] = set()
    for name, (group, help_text) in COMMANDS.items():
        if name in sub.choices:
            continue  # added by a module that registers several commands
        if argv is not None and group != chosen_group:
            sub.add_parser(name, help=help_text, add_help=False)  # a placeholder: help line only
            continue
        if group in registered:
            continue
        registered.add(group)
        command_module(group).register(sub)
    use_defaults_formatter(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    from lexprobe.redaction import RedactingStream, one_line, redact_streams, register_environment

    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    for stream in (sys.stdout, sys.stderr):  # a path with a byte that is not UTF-8 prints escaped (D3)
        if hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError):
                pass
    # the boundary where text leaves: every line printed below (the error line, logging, warnings, progress,
    # tracebacks) passes redaction.redact, the API keys of the environment registered first (#33 D7), and is
    # made printable (terminal controls from a server or a file escaped, long runs of notices counted)
    register_environment()
    redact_streams()
    # Before torch loads (no command imports it before ``args.func``): torch's OpenMP threads wait
    # for work passively instead of spinning. Spinning pays off only on idle cores; on a busy machine
    # (2 cores, load 10) a SmolLM2 400-token forward pass took 8.1 s of CPU with spinning threads and
    # 1.4 s without, at the same thread count (docs/llm.md, "The main job"). A value the user set is kept.
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(levelname)s %(name)s: %(message)s",
    )
    if not args.verbose:
        _quiet_libraries()
    try:
        from lexprobe.core.cli_common import check_declared_paths

        check_declared_paths(args)  # every declared path option, before the command runs
        return int(args.func(args) or 0)
    except LexprobeError as err:
        if args.traceback:
            raise
        print(f"lexprobe: error: {one_line(str(err))}", file=sys.stderr)
        return 2
    except OSError as err:
        if args.traceback or err.errno != errno.ENOSPC:
            raise
        # the backstop for writers without their own line (figures, tables.md, ...): results and resume
        # logs are written atomically or line by line, so what was finished before is still there
        # a copy's error names its source first (shutil sets filename to the source, filename2 to the target)
        print(f"lexprobe: error: no space left on the device writing {err.filename2 or err.filename or 'an output'}; nothing "
              "computed was lost (finished results and resume logs are kept): free space and rerun",
              file=sys.stderr)
        return 2
    except Exception as err:  # noqa: BLE001 - damaged weight files deserve one line too
        if args.traceback or type(err).__name__ != "SafetensorError":
            raise
        print(f"lexprobe: error: cannot read the model's safetensors weights ({err}); the file is damaged "
              "or truncated: download or save the model again", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("lexprobe: interrupted; finished work is kept and a rerun resumes", file=sys.stderr)
        return 130
    finally:  # the count of a run of notices cut short ends the command's output (not the process's)
        for stream in (sys.stdout, sys.stderr):
            if isinstance(stream, RedactingStream):
                stream.close_run()


class _QuietWhenImported(importlib.abc.MetaPathFinder):
    """Quiets transformers and huggingface_hub as they are first imported, not before: importing transformers
    to quiet it cost every command 1-2.5 s (a wrong ``--model`` took 5 s to be named, ``data list`` as long), and
    most commands never import it. The modules' own loaders run; then ``_quiet_libraries``."""

    def find_spec(self, fullname, path, target=None):
        if fullname not in ("transformers", "huggingface_hub"):
            return None
        import importlib.util

        sys.meta_path.remove(self)  # the real finders, from here on (and no recursion below)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        loader = getattr(spec, "loader", None)
        if loader is None or not hasattr(loader, "exec_module"):
            return spec

        class Loader(importlib.abc.Loader):
            def create_module(self, spec):
                return loader.create_module(spec)

            def exec_module(self, module):
                loader.exec_module(module)
                _quiet_library(fullname)

            def __getattr__(self, name):  # the rest (get_source, resource readers, ...) is the real loader's
                return getattr(loader, name)

        spec.loader = Loader()
        return spec


def _quiet_libraries() -> None:
    """transformers' and huggingface_hub's messages and progress bars quieted where they are imported already,
    else as soon as they are (``_QuietWhenImported``)."""
    pending = [name for name in ("transformers", "huggingface_hub") if name not in sys.modules]
    for name in ("transformers", "huggingface_hub"):
        if name in sys.modules:
            _quiet_library(name)
    if pending and not any(isinstance(f, _QuietWhenImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _QuietWhenImported())


def _quiet_library(name: str) -> None:
    if name == "huggingface_hub":
        from huggingface_hub.utils import logging as hub_logging

        hub_logging.set_verbosity_error()  # offline retries are reported once, as our own error
        return
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()
    except ImportError:  # pragma: no cover
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
