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

import re

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
    """The modules that define commands (``set_defaults(func=...)``, or declared ones: ``add_commands``), parsed."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "set_defaults(func=" in text or "add_commands(" in text or "add_command_group(" in text:
            found[str(path.relative_to(PACKAGE.parent))] = ast.parse(text)
    return found


def test_no_command_module_checks_paths_by_hand():
    """Every command's paths are declared (``path_arg`` / ``option(path=...)``) and ``outputs.guard``
    checks them; a command module that imports or calls a hand-written check has reopened the class."""
    modules = _command_modules()
    for expected in ("lexprobe/benchmarks/coda21/cli.py", "lexprobe/benchmarks/senserank/cli.py", "lexprobe/benchmarks/wdlmpro/cli.py",
                     "lexprobe/human/cli.py", "lexprobe/cli/run.py"):
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
    monkeypatch.setattr("lexprobe.core.result_schema.load", _never("the result loader"))
    for argv in (["wdlmpro", "plot", "--result", result, "--out", tmp_path / "p.json"],
                 ["coda", "heatmap", "--result", result, "--group", "0", "--out", tmp_path / "p.txt"]):
        code, err = run_cli(argv, capsys)
        assert code == 2 and err.count("\n") == 0 and "not an image format" in err, err
        assert not (tmp_path / "p.json").exists() and not (tmp_path / "p.txt").exists()


# --- #33 item 4: one writer of whole files (outputs.write_atomic) -------------------------------------------

#: the write calls outside ``outputs.py`` that do not go through ``outputs.write_atomic`` (or ``open_private`` /
#: ``open_new`` / ``files_into``), each with why it is safe: (module, call) -> (how many, why)
WRITERS_ALLOWED = {
    ("lexprobe/reporting.py", "savefig"): (1, "save_figure: into write_atomic's temporary file (a file object)"),
    ("lexprobe/benchmarks/senserank/finetune.py", "save_pretrained"): (2, "into outputs.files_into's fresh staging "
                                                                          "folder, then renamed into --out"),
    ("lexprobe/benchmarks/senserank/finetune.py", "torch.save"): (1, "the same staging folder"),
    ("lexprobe/models/gguf.py", "save_pretrained"): (2, "into a folder made now with os.mkdir (a link there is "
                                                        "removed first), renamed whole into the cache"),
    ("lexprobe/model_names.py", "os.open"): (1, "O_NOFOLLOW creation of this process's temporary name, renamed "
                                               "into the cache"),
}
_WRITE_MODE = set("wax+")
_NOT_FILES = ("gzip", "tarfile", "zipfile", "lzma", "bz2")


def _mode(node: ast.Call, index: int):
    for kw in node.keywords:
        if kw.arg == "mode":
            return kw.value
    return node.args[index] if len(node.args) > index else None


def _writes(mode) -> bool:
    """A mode that writes (or one the scan cannot read: a variable)."""
    return not (isinstance(mode, ast.Constant) and isinstance(mode.value, str)) or bool(set(mode.value) & _WRITE_MODE)


def writer_calls(tree: ast.Module):
    """(line, what) of every call in ``tree`` that writes a file by its name: ``open``/``Path.open``/``os.fdopen`` in a
    writing mode, ``write_text``, ``write_bytes``, ``savefig``, ``json.dump``, ``np.save*``, ``torch.save``,
    ``save_pretrained``, ``tofile``, ``extract(all)``, ``shutil`` copies and moves, ``os.open`` that creates or
    writes. ``os.fdopen(open_private(...))`` is lexprobe's own never-through-a-link opening and is not one."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None
        owner = f.value.id if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) else None
        what = None
        if name in ("write_text", "write_bytes", "savefig", "save_pretrained", "tofile", "extract", "extractall"):
            what = name
        elif name == "dump" and owner in ("json", "pickle"):
            what = f"{owner}.dump"
        elif owner in ("np", "numpy") and name and name.startswith("save"):
            what = f"np.{name}"
        elif owner == "torch" and name == "save":
            what = "torch.save"
        elif owner == "shutil" and name in ("copy", "copyfile", "copy2", "move", "copytree"):
            what = f"shutil.{name}"
        elif owner == "os" and name == "open":
            flags = ast.unparse(node.args[1]) if len(node.args) > 1 else ""
            if any(flag in flags for flag in ("O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND", "O_TRUNC")):
                what = "os.open"
        elif owner == "os" and name == "fdopen":
            first = node.args[0] if node.args else None
            opened_privately = isinstance(first, ast.Call) and getattr(first.func, "id", None) == "open_private"
            if not opened_privately and _writes(_mode(node, 1)):
                what = "os.fdopen"
        elif name == "open" and owner not in _NOT_FILES + ("os",):
            # open(path, mode), io.open(path, mode); path.open(mode), but archive.open(member, mode)
            first_is_mode = isinstance(f, ast.Attribute) and owner != "io" and node.args and isinstance(
                node.args[0], ast.Constant) and isinstance(node.args[0].value, str) and re.fullmatch(
                r"[rwxabt+]{1,3}", node.args[0].value) is not None  # wordnet.open("index.sense") is a name
            mode = _mode(node, 0 if first_is_mode else 1)
            if mode is not None and _writes(mode):
                what = "open"
        if what:
            yield node.lineno, what


def _package_writers() -> dict[tuple[str, str], list[int]]:
    found: dict[tuple[str, str], list[int]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        name = str(path.relative_to(PACKAGE.parent))
        if name == "lexprobe/outputs.py":
            continue  # the writer itself
        for line, what in writer_calls(ast.parse(path.read_text(encoding="utf-8"))):
            found.setdefault((name, what), []).append(line)
    return found


def test_every_file_is_written_through_the_atomic_writer():
    """A module that writes a file by name (``Path.write_text``, ``open(..., "w")``, ``savefig(path)``, ...) writes
    through a link planted at that name (``report --out DIR`` once wrote ``index.html`` into the file a link in DIR
    pointed to, D3): every writer goes through ``outputs.write_atomic`` (a temporary file renamed over the name)
    or is listed in ``WRITERS_ALLOWED`` with why it is safe. Fails on the code before #33 (report/build.py,
    install.py, wdlmpro/human.py, senserank/cli.py, store.py, wordnet.py, ... wrote by name)."""
    found = _package_writers()
    offenders = [f"{name}:{lines[0]} {what}" for (name, what), lines in found.items()
                 if len(lines) > WRITERS_ALLOWED.get((name, what), (0, ""))[0]]
    assert not offenders, "write through outputs.write_atomic instead: " + "; ".join(offenders)
    stale = [key for key, (count, _) in WRITERS_ALLOWED.items() if len(found.get(key, [])) != count]
    assert not stale, f"WRITERS_ALLOWED lists calls that are gone: {stale}"


def test_the_writer_scan_sees_each_kind_of_write():
    """The scan is not vacuous: each way of writing a file by name is seen, and the safe forms are not."""
    source = '''
open(p, "w"); open(p, mode="ab"); Path(p).open("w"); p.write_text("x"); p.write_bytes(b""); fig.savefig(p)
json.dump(obj, f); np.save(p, a); torch.save(s, p); m.save_pretrained(d); shutil.copyfile(a, b); z.extractall(d)
os.open(p, os.O_WRONLY | os.O_CREAT); os.fdopen(fd, "w"); open(p, mode); z.open(member, "w")
open(p); open(p, "rb"); Path(p).open(); gzip.open(p, "rt"); os.open(p, os.O_RDONLY); os.fdopen(open_private(p), "a")
z.open(member)
'''
    seen = [what for _, what in writer_calls(ast.parse(source))]
    assert seen == ["open", "open", "open", "write_text", "write_bytes", "savefig", "json.dump", "np.save",
                    "torch.save", "save_pretrained", "shutil.copyfile", "extractall", "os.open", "os.fdopen",
                    "open", "open"], seen
