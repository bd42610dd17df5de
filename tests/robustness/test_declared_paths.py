"""Issue #26, class "inputs and outputs of a command are declared once, not checked by hand": the seven
commands that still checked their paths by hand (``coda build``, ``coda sample-human``, ``senserank
pdep-convert``, ``senserank finetune``, ``wdlmpro build``, ``wdlmpro sample-human``, ``human serve``)
declare them (``cli_common.path_arg``), and ``outputs.guard`` refuses an output that is one of their
inputs (also through a link) with exit 2 and one line, before the command's first work.

``test_no_command_module_checks_paths_by_hand`` fails on the code before this change (those commands
called ``check_not_inputs`` / ``check_output_file`` / ``check_output_dir`` / ``check_image_file``);
``test_pdep_convert_into_a_read_only_folder_is_one_line_before_the_conversion`` too (an ``OSError``
traceback after the conversion: ``pdep-convert`` never checked its ``--out``).
"""

from __future__ import annotations

import ast
import hashlib
import os
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.robustness import run_cli

PACKAGE = Path(__file__).resolve().parents[2] / "lexprobe"
HAND_CHECKS = {"check_output_file", "check_output_dir", "check_not_inputs", "check_image_file"}


def digest(path: Path) -> str:
    if path.is_dir():
        return "|".join(f"{p.relative_to(path)}:{digest(p)}" for p in sorted(path.rglob("*")) if p.is_file())
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _never(name):
    def fail(*a, **k):
        pytest.fail(f"{name} ran although the output is an input")
    return fail


def _case(name: str, tmp: Path, link: bool):
    """(argv, the input that must survive, the first work of the command: a dotted attribute)."""
    def out(target: Path) -> Path:  # the output as given: the input itself, or a link to it
        if not link:
            return target
        alias = tmp / ("alias-" + target.name)
        alias.symlink_to(target, target_is_directory=target.is_dir())
        return alias

    if name == "coda build":
        semcor = tmp / "semcor.zip"
        semcor.write_bytes(b"PK not really an archive")
        return (["coda", "build", "--semcor", semcor, "--out", out(semcor), "--context-model", "first"], semcor,
                "lexprobe.data.wordnet.load_wordnet")
    if name == "coda sample-human":
        data = tmp / "easy.json"
        data.write_text('{"n": [], "v": []}')
        return (["coda", "sample-human", "--data", data, "--out", out(data)], data,
                "lexprobe.benchmarks.coda21.human.write_sample")
    if name == "senserank pdep-convert":
        folder = tmp / "pdep"
        folder.mkdir()
        prepcorp = folder / "pdep_test.conllu"  # a file the command writes into --out
        prepcorp.write_text("not really sqlite\n")
        return (["senserank", "pdep-convert", "--prepcorp", prepcorp, "--out", out(folder)], folder,
                "lexprobe.data.pdep_rules.read_prepcorp")
    if name == "senserank finetune":
        model = tmp / "model"
        model.mkdir()
        (model / "config.json").write_text('{"model_type": "bert"}')
        return (["senserank", "finetune", "--model", model, "--instances", "100", "--out", out(model)], model,
                "lexprobe.benchmarks.senserank.finetune.finetune")
    if name == "senserank finetune (STREUSLE)":
        streusle = tmp / "streusle"
        streusle.mkdir()
        (streusle / "train.json").write_text("[]")
        return (["senserank", "finetune", "--path", streusle, "--instances", "100", "--out", out(streusle)],
                streusle, "lexprobe.benchmarks.senserank.finetune.finetune")
    if name == "wdlmpro build":  # no input but the data directory, which `lexprobe data` keeps
        from lexprobe.data_home import data_dir

        folder = data_dir() / "wdlmpro"
        folder.mkdir(parents=True)
        (folder / "wdlmpro_n.jsonl").write_text("{}\n")
        return (["wdlmpro", "build", "--pos", "n", "--out", out(folder)], folder,
                "lexprobe.benchmarks.wdlmpro.dataset.build_groups")
    if name == "wdlmpro sample-human":
        folder = tmp / "human"
        folder.mkdir()
        data = folder / "human_w2d.jsonl"  # a file the command writes into --out
        data.write_text("{}\n")
        return (["wdlmpro", "sample-human", "--data", data, "--out", out(folder)], folder,
                "lexprobe.benchmarks.wdlmpro.dataset.load_dataset")
    if name == "human serve":
        data = tmp / "coda.json"
        data.write_text('{"n": [], "v": []}')
        return (["human", "serve", "--benchmark", "coda21", "--data", data, "--db", out(data), "--port", "0"], data,
                "lexprobe.human.store.AnswerStore")
    raise AssertionError(name)


COMMANDS = ["coda build", "coda sample-human", "senserank pdep-convert", "senserank finetune",
            "senserank finetune (STREUSLE)", "wdlmpro build", "wdlmpro sample-human", "human serve"]


@pytest.mark.parametrize("link", [False, True], ids=["same path", "through a link"])
@pytest.mark.parametrize("name", COMMANDS)
def test_an_output_that_is_an_input_is_refused_before_any_work(name, link, tmp_path, capsys, monkeypatch):
    argv, protected, work = _case(name, tmp_path, link)
    monkeypatch.setattr(work, _never(work))
    before = digest(protected)
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0 and err.startswith("lexprobe: error:"), err
    assert "is the input" in err or "would destroy" in err or "inside the data directory" in err, err
    assert digest(protected) == before


def test_coda_sample_human_keeps_the_official_file_it_reads_when_data_is_not_given(tmp_path, capsys,
                                                                                  monkeypatch):
    """--data absent means the official clean-easy file (``implied``): it is guarded like a given one,
    also where $LEXPROBE_CODA_DIR puts it outside the data directory."""
    coda_dir = tmp_path / "coda"
    coda_dir.mkdir()
    official = coda_dir / "CoDA-clean-easy.json"
    official.write_text('{"n": [], "v": []}')
    monkeypatch.setenv("LEXPROBE_CODA_DIR", str(coda_dir))
    monkeypatch.setattr("lexprobe.benchmarks.coda21.human.write_sample", _never("write_sample"))
    code, err = run_cli(["coda", "sample-human", "--out", official], capsys)
    assert code == 2 and err.count("\n") == 0 and "is the input --data" in err, err
    assert official.read_text() == '{"n": [], "v": []}'


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into a read-only (0555) folder")
def test_pdep_convert_into_a_read_only_folder_is_one_line_before_the_conversion(tmp_path, capsys, monkeypatch):
    prepcorp = tmp_path / "prepcorp.sqlite"
    prepcorp.write_bytes(b"SQLite format 3\x00")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    monkeypatch.setattr("lexprobe.data.pdep_rules.read_prepcorp", _never("read_prepcorp"))
    try:
        code, err = run_cli(["senserank", "pdep-convert", "--prepcorp", prepcorp, "--out", folder / "out"], capsys)
    finally:
        folder.chmod(0o755)
    assert code == 2 and err.count("\n") == 0 and "--out" in err and "not writable" in err, err


def test_pdep_convert_into_a_read_only_folder_is_refused_by_the_guard(tmp_path, monkeypatch):
    """The same, as root can see it: --out is declared, so the guard probes its folder before any work."""
    from lexprobe.errors import OutputError

    prepcorp = tmp_path / "prepcorp.sqlite"
    prepcorp.write_bytes(b"SQLite format 3\x00")
    probed = []

    def refuse(folder, option, target, create=True):
        probed.append((option, Path(target)))
        raise OutputError(f"{option} {target}: folder {folder} is not writable; choose a writable location")

    monkeypatch.setattr("lexprobe.outputs._probe_dir", refuse)
    monkeypatch.setattr("lexprobe.data.pdep_rules.read_prepcorp", _never("read_prepcorp"))
    assert main(["senserank", "pdep-convert", "--prepcorp", str(prepcorp), "--out", str(tmp_path / "out")]) == 2
    assert probed == [("--out", tmp_path / "out")]


def _command_modules() -> dict[str, ast.Module]:
    """The modules that define commands (``set_defaults(func=...)``), parsed."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "set_defaults(func=" in text:
            found[str(path.relative_to(PACKAGE.parent))] = ast.parse(text)
    return found


def test_no_command_module_checks_paths_by_hand():
    """Every command's paths are declared (``path_arg`` / ``option(path=...)``) and ``outputs.guard``
    checks them; a command module that imports or calls a hand-written check has reopened the class."""
    modules = _command_modules()
    for expected in ("lexprobe/benchmarks/coda21/cli.py", "lexprobe/benchmarks/senserank/cli.py", "lexprobe/benchmarks/wdlmpro/cli.py",
                     "lexprobe/human/cli.py", "lexprobe/run.py"):
        assert expected in modules  # the scan sees the command modules (it is not vacuous)
    offenders = []
    for name, tree in modules.items():
        for node in ast.walk(tree):
            used = (node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute)
                    else None)
            if isinstance(node, ast.ImportFrom):
                offenders += [f"{name}:{node.lineno} imports {a.name}" for a in node.names if a.name in HAND_CHECKS]
            elif used in HAND_CHECKS:
                offenders.append(f"{name}:{node.lineno} uses {used}")
    assert not offenders, "declare the path (cli_common.path_arg) instead: " + "; ".join(offenders)


def test_an_image_option_is_declared_and_its_format_checked_by_the_guard(tmp_path, capsys, monkeypatch):
    """``IMAGE``: an output file whose extension names an image format (wdlmpro plot, coda heatmap)."""
    result = tmp_path / "r.json"
    result.write_text("{}")
    monkeypatch.setattr("lexprobe.result_schema.load", _never("the result loader"))
    for argv in (["wdlmpro", "plot", "--result", result, "--out", tmp_path / "p.json"],
                 ["coda", "heatmap", "--result", result, "--group", "0", "--out", tmp_path / "p.txt"]):
        code, err = run_cli(argv, capsys)
        assert code == 2 and err.count("\n") == 0 and "not an image format" in err, err
        assert not (tmp_path / "p.json").exists() and not (tmp_path / "p.txt").exists()
