"""Names from data are never paths: an export's part folder (a WSD set is its file's name or an export's ``set``), a
task's file, a manifest's part path and key each become a path only as one safe name per component
(``outputs.files_inside``, ``outputs.relative_path_problem``), kept inside the folder, and no two the same however
cased. A name that cannot be one is one line (exit 2) and nothing is written.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data.exported import MANIFEST
from lexprobe.errors import OutputError
from tests.data.test_wsd import XML, write_pair
from tests.export.helpers import write_small_coda, write_small_wdlmpro
from tests.robustness import run_cli


def one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 0 and err.startswith("lexprobe: error:"), (code, err)
    return err


def own_pair(folder: Path, name: str) -> Path:
    return write_pair(folder, xml=XML.replace(' source="senseval2"', ""), name=name)


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# --- the writer: outputs.files_inside ---------------------------------------------------------------------

@pytest.mark.parametrize("names, says", [
    (["../test.parquet"], "'..'"),
    (["/etc/x/test.parquet"], "absolute"),
    (["a\x00b/test.parquet"], "NUL"),
    (["a\\b/test.parquet"], "separator"),
    ([".hidden/test.parquet"], "starts with '.'"),
    (["a*/test.parquet"], "letters, digits"),
    (["a\n## x/test.parquet"], "letters, digits"),
    ([""], "empty"),
    (["ok/test.parquet", "OK/test.parquet"], "would be one file"),
    (["README.md", "readme.md/test.parquet"], "would be one file"),
    (["x/test.parquet", "X"], "would be one file"),
])
def test_a_name_from_data_that_is_no_safe_file_name_is_refused(names, says, tmp_path):
    from lexprobe.outputs import files_inside

    with pytest.raises(OutputError) as refused:
        files_inside(tmp_path, names, "a part file")
    assert says in str(refused.value) and "\n" not in str(refused.value), str(refused.value)
    assert files_under(tmp_path) == []


def test_safe_names_are_joined_inside_the_folder(tmp_path):
    from lexprobe.outputs import files_inside

    names = ["README.md", "clean-hard/noun/test.parquet", "senseval2/test.parquet", "my_set.v2+/test.parquet"]
    assert files_inside(tmp_path, names, "a part file") == [tmp_path / n for n in names]


# --- through the commands -----------------------------------------------------------------------------------

@pytest.mark.parametrize("command", ["hf", "lm-eval"])
def test_a_wsd_file_named_dot_dot_dot_data_xml_writes_nothing_outside_out(command, tmp_path, capsys, monkeypatch):
    """``...data.xml``: its set is ``..``, and ``export hf wsd --out exp/x`` once wrote its part to
    ``exp/x/../test.parquet``, replacing ``exp/test.parquet``."""
    monkeypatch.chdir(tmp_path)
    own_pair(tmp_path, "..")
    exp = tmp_path / "exp"
    exp.mkdir()
    (exp / "test.parquet").write_text("keep\n")
    code, err = run_cli(["export", command, "wsd", "--data", "...data.xml", "--out", "exp/x"], capsys)
    assert "'..'" in one_line(code, err)
    assert files_under(exp) == ["test.parquet"] and (exp / "test.parquet").read_text() == "keep\n"


def _crafted_wsd_export(tmp_path: Path, key: str | None, rows_set: str) -> Path:
    """An export of a WSD file pair whose rows say their set is ``rows_set`` (the manifest's key too, or ``key``),
    the manifest's SHA-256 made to fit: only the names are crafted."""
    import pyarrow.parquet as pq

    from lexprobe.provenance import file_sha256

    export = tmp_path / "crafted"
    assert main(["export", "hf", "wsd", "--data", str(own_pair(tmp_path / "src", "ok")), "--out", str(export)]) == 0
    manifest = json.loads((export / MANIFEST).read_text())
    part = export / manifest["parts"][0]["path"]
    table = pq.read_table(part)
    rows = table.to_pylist()
    for row in rows:
        row["set"] = rows_set
    pq.write_table(type(table).from_pylist(rows, schema=table.schema), part)
    manifest["parts"][0]["sha256"] = file_sha256(part)
    manifest["parts"][0]["key"]["set"] = rows_set if key is None else key
    (export / MANIFEST).write_text(json.dumps(manifest))
    return export


@pytest.mark.parametrize("crafted", ["../../x", "absolute", "a/b"])
@pytest.mark.parametrize("where", ["the manifest and the rows", "the rows only"])
def test_a_crafted_export_whose_set_is_a_path_writes_nothing_outside_out(crafted, where, tmp_path, capsys):
    """An export whose ``set`` is ``../../x`` or absolute, read back and exported again, once wrote its parts
    anywhere. A crafted key is refused where the manifest is read; crafted rows where the part folder is named."""
    name = str(tmp_path / "abs") if crafted == "absolute" else crafted
    export = _crafted_wsd_export(tmp_path, None if where == "the manifest and the rows" else "ok", name)
    before = files_under(tmp_path)
    out = tmp_path / "deep" / "er" / "out"
    one_line(*run_cli(["export", "hf", "wsd", "--data", export, "--out", out], capsys))
    assert set(files_under(tmp_path)) - set(before) <= {"deep", "deep/er"}  # nothing but --out's folder
    assert not (tmp_path / "x").exists() and not (tmp_path / "abs").exists() and not out.exists()


def test_parts_whose_names_differ_only_in_case_are_refused_before_anything_is_written(tmp_path):
    """Sets ``ok`` and ``OK``: one folder on a case-insensitive file system, so one part would be lost."""
    from lexprobe.core.exports import ExportOptions, PartRows
    from lexprobe.export.hf import write_export
    from lexprobe.benchmarks.wsd.export import EXPORT

    selection = EXPORT.select(ExportOptions(data=str(own_pair(tmp_path / "src", "ok"))))
    first = selection.parts[0]
    selection.parts.append(PartRows({"set": "OK"}, "OK", [dict(r, set="OK") for r in first.rows]))
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(OutputError, match="'OK/test.parquet' would be one file"):
        write_export(folder, EXPORT, selection, "lexprobe export hf wsd")
    assert files_under(folder) == []


def test_lm_eval_tasks_whose_names_differ_only_in_case_are_refused_before_anything_is_written(tmp_path):
    from lexprobe.core.exports import ExportOptions, LMEvalTask
    from lexprobe.export.lm_eval import write_tasks
    from lexprobe.benchmarks.wsd.export import EXPORT

    selection = EXPORT.select(ExportOptions(data=str(own_pair(tmp_path / "src", "ok"))))
    doc = {"id": "a", "pos": "N", "gold": 0, "golds": [0], "context": "c", "continuations": ["d"], "keys": ["k"]}
    twins = dataclasses.replace(EXPORT, lm_eval=lambda _: [LMEvalTask(f"lexprobe_wsd_{n}", "senses", "lexprobe_wsd",
                                                                      [doc], n) for n in ("ok", "OK")])
    folder = tmp_path / "out"
    folder.mkdir()
    with pytest.raises(OutputError, match="would be one file"):
        write_tasks(folder, [(twins, selection)], "lexprobe export lm-eval wsd")
    assert files_under(folder) == []


def test_a_coda21_file_of_any_name_gets_a_safe_folder(tmp_path):
    """CoDA21 names a file's folder after it (``_variant_of``): any name gives letters, digits and ``-``."""
    source = write_small_coda(tmp_path / "données ..[x]*.json")
    out = tmp_path / "out"
    assert main(["export", "hf", "coda21", "--data", str(source), "--out", str(out)]) == 0
    assert {p.parent.parent.name for p in out.rglob("test.parquet")} == {"donn-es----x"}


# --- the reader: a manifest's part paths and keys -------------------------------------------------------------

@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("exports")
    made = {"wdlmpro": write_small_wdlmpro(folder / "small.jsonl"), "coda21": write_small_coda(folder / "small.json"),
            "wsd": own_pair(folder / "wsd", "ok")}
    for benchmark, source in made.items():
        assert main(["export", "hf", benchmark, "--data", str(source), "--out", str(folder / f"{benchmark}-export")]) == 0
    return {benchmark: folder / f"{benchmark}-export" for benchmark in made}


CRAFTED = {
    "a folder": (lambda e: e.update(path=str(Path(e["path"]).parent)), "a folder"),
    "a NUL": (lambda e: e.update(path=e["path"].replace("test", "te\x00st")), "NUL"),
    "absolute": (lambda e: e.update(path="/etc/passwd"), "outside the export folder"),
    "../../x": (lambda e: e.update(path="../../x"), "outside the export folder"),
    "a/../b": (lambda e: e.update(path=f"{Path(e['path']).parent}/../{e['path']}"), "outside the export folder"),
    "a key that is a path": (lambda e: e["key"].update({next(iter(e["key"])): "../../x"}), "separator"),
    "a key with a NUL": (lambda e: e["key"].update({next(iter(e["key"])): "n\x00"}), "NUL"),
}


@pytest.mark.parametrize("crafted", list(CRAFTED) + ["two paths one file"])
@pytest.mark.parametrize("benchmark", ["wdlmpro", "coda21", "wsd"])
def test_a_crafted_manifest_is_one_line(benchmark, crafted, exports, tmp_path, capsys):
    """A part path that is a folder once gave ``IsADirectoryError``, one holding NUL ``ValueError: embedded null
    byte``; ``..`` and absolute paths were refused only by a check of their own."""
    folder = tmp_path / "crafted"
    shutil.copytree(exports[benchmark], folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    if crafted == "two paths one file":
        twin = dict(manifest["parts"][0], path=manifest["parts"][0]["path"].upper())
        manifest["parts"].append(twin)
        says = "name one file"
    else:
        change, says = CRAFTED[crafted]
        change(manifest["parts"][0])
    (folder / MANIFEST).write_text(json.dumps(manifest))
    err = one_line(*run_cli([benchmark, "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                            capsys))
    assert says in err and str(folder / MANIFEST) in err, err
    assert not (tmp_path / "r.json").exists()
