"""One place says what a valid option is (#28): ``evaluate`` refuses, for a config built in Python, what the
option declarations make the CLI's parser refuse (choices, positive integers, in nested groups too), for every
benchmark alike, before any data or model loads; no benchmark re-checks its options by hand."""

from __future__ import annotations

import dataclasses

import pytest

from lexprobe.core.evaluate import evaluate
from lexprobe.core.options import check_declared
from lexprobe.core.registry import all_benchmarks
from lexprobe.errors import LexprobeError


def _no_load(*args, **kwargs):
    raise AssertionError("loaded data before the options were checked")


@pytest.mark.parametrize("bench", [b for b in all_benchmarks()], ids=lambda b: b.meta.name)
def test_a_bad_declared_value_is_one_line_before_any_data_loads(bench, load_items_as):
    bench = load_items_as(bench.meta.name, _no_load)
    fields = {f.name: f for f in dataclasses.fields(bench.Config)}
    with pytest.raises(LexprobeError, match=r"^unknown --method 'guess'; use ") as err:
        evaluate(bench, "random", dataclasses.replace(bench.Config(**_required(bench)), method="guess"))
    assert "\n" not in str(err.value)
    assert "seed" in fields  # every benchmark has a seed, declared non-negative
    with pytest.raises(LexprobeError, match=r"^--seed must be 0 or more, got -1$"):
        evaluate(bench, "random", dataclasses.replace(bench.Config(**_required(bench)), seed=-1))


def _required(bench) -> dict:
    from lexprobe.core.options import spec

    return {f.name: "x" for f in spec(bench.Config) if f.required}


def test_nested_groups_are_checked_too():
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.prompting.choose_cli import ChooseOptions

    with pytest.raises(LexprobeError, match="--permutations must be at least 1, got 0"):
        check_declared(WDLMProConfig(method="choose", choose=ChooseOptions(permutations=0)))


def test_an_option_that_names_the_data_takes_any_name_for_items_the_caller_loaded():
    from lexprobe.benchmarks.senserank.config import SenseConfig

    with pytest.raises(LexprobeError, match="unknown --corpus 'mine'"):
        check_declared(SenseConfig(corpus="mine"))
    check_declared(SenseConfig(corpus="mine"), items_given=True)  # the caller's own corpus, named "mine"


# --- a command's options: one declaration gives the flags, the checks and the declared paths (#37 item 3) -------

def _parser(options: type):
    import argparse

    from lexprobe.core.options import add_commands

    parser = argparse.ArgumentParser(prog="t")
    add_commands(parser.add_subparsers(dest="command"), {"cmd": (options, "a command", lambda config: config)})
    return parser


def test_choices_from_a_function_are_read_when_the_parser_is_built_and_by_check_declared():
    """A registry's names as choices: the function the declaring command passes is called when the parser is
    built (a name registered after the class was declared is offered), and ``check_declared`` reads the same."""
    from lexprobe.core.options import option

    registry = ["a"]

    @dataclasses.dataclass(frozen=True)
    class Options:
        name: str = option("a", "a registered name", choices=lambda: tuple(registry))

    registry.append("b")
    args = _parser(Options).parse_args(["cmd", "--name", "b"])
    assert args.func(args) == Options(name="b")
    with pytest.raises(SystemExit):
        _parser(Options).parse_args(["cmd", "--name", "c"])
    with pytest.raises(LexprobeError, match=r"^unknown --name 'c'; use a, b$"):
        check_declared(Options(name="c"))


def test_metavar_short_positional_and_an_open_input_folder_are_declared_in_the_field(tmp_path):
    from lexprobe.core.cli_common import check_declared_paths
    from lexprobe.core.options import option
    from lexprobe.outputs import INPUT, OUTPUT_DIR

    @dataclasses.dataclass(frozen=True)
    class Options:
        results: tuple[str, ...] = option((), "inputs", flag="results", nargs="+", metavar="R.json", path=INPUT,
                                          outputs_inside=True)
        out: str = option(None, "a folder", required=True, metavar="DIR", path=OUTPUT_DIR, writes=("index.html",))
        verbose: bool = option(False, "more", short="-v")

    parser = _parser(Options)
    help_text = parser._subparsers._group_actions[0].choices["cmd"].format_help()
    assert "-v, --verbose" in help_text and "--out DIR" in help_text and "R.json [R.json ...]" in help_text
    folder = tmp_path / "results"
    folder.mkdir()
    args = parser.parse_args(["cmd", "-v", str(folder), "--out", str(folder / "report")])
    assert args.func(args) == Options(results=(str(folder),), out=str(folder / "report"), verbose=True)
    assert [(d.label, d.kind, d.writes, d.outputs_inside) for d in args._paths] == [
        ("R.json", INPUT, (), True), ("--out", OUTPUT_DIR, ("index.html",), False)]
    check_declared_paths(args)  # an output inside an input folder declared open: allowed
    closed = parser.parse_args(["cmd", str(folder), "--out", str(folder)])
    with pytest.raises(LexprobeError):  # the output folder is the input itself: refused by the guard
        check_declared_paths(closed)


def test_no_top_level_command_builds_its_options_by_hand():
    """The top-level commands' options are declared dataclasses (``option(...)`` fields) read by
    ``add_options``/``add_commands``: a hand-written ``add_argument`` or ``path_arg`` in their modules has
    reopened the class (flags, checks and declared paths drifting apart)."""
    from pathlib import Path

    import lexprobe

    package = Path(lexprobe.__file__).parent
    modules = ["cli/__init__.py", "cli/run.py", "cli/check_endpoint.py", "report/cli.py", "cli/data.py", "human/cli.py",
               "export/cli.py", "cli/models.py"]
    for name in modules:
        text = (package / name).read_text(encoding="utf-8")
        assert "add_options(" in text or "add_commands(" in text or "add_command_group(" in text, name
        assert "add_argument(" not in text and "path_arg(" not in text, name
