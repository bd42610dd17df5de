"""One row validation for every item source (``data.exported.RowFormat``): the same declaration checks a row of an
exported parquet file and an item of the benchmark's own file (WDLMPro JSONL, CoDA21 JSON, the WSD framework's
XML and gold keys): types and ranges, uniqueness (an item is never scored twice), sizes per field (checked from a
parquet file's metadata before anything is decompressed), and a key file's byte-order mark. Bad data is exit 2 and
one line naming the file and the line or row, before any model loads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Callable

import pytest

from lexprobe.cli import main
from lexprobe.data.exported import MANIFEST
from lexprobe.errors import DataError
from tests.data.test_wsd import GOLD, XML, write_pair
from tests.export.helpers import SMALL_CODA, write_small_coda, write_small_wdlmpro


@pytest.fixture(scope="module")
def exports(tmp_path_factory) -> dict[str, Path]:
    """An export of each benchmark's small items (WSD: five instances of one's own file)."""
    folder = tmp_path_factory.mktemp("exports")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LEXPROBE_DATA", str(folder / "data-dir"))
        env.setenv("LEXPROBE_CACHE", str(folder / "cache"))
        sources = {"wsd": write_pair(folder / "wsd", name="mini"),
                   "wdlmpro": write_small_wdlmpro(folder / "small.jsonl"),
                   "coda21": write_small_coda(folder / "small.json")}
        for name, source in sources.items():
            assert main(["export", "hf", name, "--data", str(source), "--out", str(folder / name / "export")]) == 0
    return {name: folder / name / "export" for name in sources}


def crafted(exports: dict[str, Path], benchmark: str, tmp_path: Path,
            rows: Callable[[list[dict]], list[dict]] | None = None,
            manifest: Callable[[dict], dict] | None = None) -> Path:
    """A copy of an export with its first part's rows changed by ``rows`` (written with the schema of the
    original, the manifest's row count and SHA-256 made to match, as a crafted export would) or its manifest by
    ``manifest``."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexprobe.provenance import file_sha256

    folder = tmp_path / "crafted"
    shutil.copytree(exports[benchmark], folder)
    body = json.loads((folder / MANIFEST).read_text())
    if rows is not None:
        entry = body["parts"][0]
        path = folder / entry["path"]
        table = pq.read_table(path)
        changed = rows(table.to_pylist())
        pq.write_table(pa.Table.from_pylist(changed, schema=table.schema), path)
        entry["rows"], entry["sha256"] = len(changed), file_sha256(path)
    if manifest is not None:
        body = manifest(body)
    (folder / MANIFEST).write_text(json.dumps(body))
    return folder


def refused(argv: list, capsys, monkeypatch) -> str:
    """The one line of a command refused with exit 2 before any model loads."""
    from lexprobe.core import cli_common

    monkeypatch.setattr(cli_common, "scorer_from_args", lambda *a, **k: pytest.fail("the model loaded"))
    capsys.readouterr()
    code = main([str(a) for a in argv])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def _row(i: int, **change):
    def edit(rows: list[dict]) -> list[dict]:
        rows[i] = {**rows[i], **change}
        return rows

    return edit


# --- types and ranges: every field as declared ---------------------------------------------------------------

@pytest.mark.parametrize("change, problem", [
    ({"index": -1}, "index is not an integer at least 0"),
    ({"index": 4}, "index 4 is past the last of its 4 tokens"),
    ({"pos": "NOUN"}, "pos is not one of 'N', 'V', 'A', 'R'"),
    ({"tokens": []}, "tokens is not a list of at least 1"),
    ({"tokens": ["He", " ", "quickly", "'s"]}, "tokens[1] is not a text that is not blank"),
    ({"id": "d000.s001 t000"}, "id is not an id without spaces"),
    ({"gold": ["run"]}, "gold[0] is not a WordNet sense key"),
    ({"gold": []}, "gold is not a list of at least 1"),
    ({"lemma": None}, "lemma is not a string"),
])
def test_a_wsd_export_row_is_checked_field_by_field(exports, tmp_path, capsys, monkeypatch, change, problem):
    folder = crafted(exports, "wsd", tmp_path, _row(3, **change))
    line = refused(["wsd", "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert "test.parquet: row 3:" in line and problem in line and "export it again" in line, line
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("benchmark, change, problem", [
    ("wdlmpro", {"pos": "x"}, "pos is not one of 'n', 'v'"),
    ("wdlmpro", {"target": "other.n.01"}, "the first candidate must be the target"),
    ("wdlmpro", {"candidates": []}, "candidates is not a list of at least 2"),
    ("coda21", {"id": "n 0"}, "id is not an id without spaces"),
    ("coda21", {"candidates": [{"synset": "a.n.01", "definition": "d", "context": "x y", "word": "z"}] * 2},
     "target word 'z' of a.n.01 not found in its context"),
])
def test_rows_of_the_other_exports_are_checked_by_their_declarations(exports, tmp_path, capsys, monkeypatch,
                                                                     benchmark, change, problem):
    folder = crafted(exports, benchmark, tmp_path, _row(0, **change))
    line = refused([benchmark, "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert "row 0:" in line and problem in line, line


@pytest.mark.parametrize("change, problem", [
    ({"pos": "a"}, "pos is not one of 'n', 'v'"),
    ({"candidates": [{"synset": "dog.n.01", "word": "dog", "definition": "  "}] * 2}, "is not a text that is not blank"),
    ({"word": 3}, "word is not a string"),
])
def test_a_wdlmpro_jsonl_line_is_checked_by_the_same_declaration(tmp_path, capsys, monkeypatch, change, problem):
    source = write_small_wdlmpro(tmp_path / "small.jsonl")
    lines = source.read_text().splitlines()
    lines[2] = json.dumps({**json.loads(lines[2]), **change})
    source.write_text("\n".join(lines) + "\n")
    line = refused(["wdlmpro", "eval", "--model", "random", "--data", source, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{source}:3:" in line and problem in line, line


def test_a_wsd_instance_of_the_framework_files_is_checked_by_the_same_declaration(tmp_path, capsys, monkeypatch):
    xml = XML.replace(">quickly<", ">" + "q" * 2000 + "<")
    data = write_pair(tmp_path / "data", xml, name="mine")
    line = refused(["wsd", "eval", "--model", "random", "--data", data, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{data}:" in line and "tokens[2] is not at most 1,024 bytes of text" in line, line


# --- uniqueness: an item is scored once -----------------------------------------------------------------------

def test_a_repeated_jsonl_group_is_refused_naming_both_lines(tmp_path, capsys, monkeypatch):
    source = write_small_wdlmpro(tmp_path / "small.jsonl")
    lines = source.read_text().splitlines()
    source.write_text("\n".join(lines + lines[:1]) + "\n")
    line = refused(["wdlmpro", "eval", "--model", "random", "--data", source, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{source}:5:" in line and "'dog.n.01' is given twice" in line and f"{source}:1" in line, line


@pytest.mark.parametrize("benchmark, what", [("wsd", "instance id 'd000.s000.t000'"), ("coda21", "group id 'n/0'"),
                                             ("wdlmpro", "target 'dog.n.01'")])
def test_a_repeated_export_row_is_refused(exports, tmp_path, capsys, monkeypatch, benchmark, what):
    folder = crafted(exports, benchmark, tmp_path, lambda rows: rows + rows[:1])
    line = refused([benchmark, "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{what} is given twice" in line and "row 0" in line, line


@pytest.mark.parametrize("benchmark", ["wdlmpro", "wsd"])
def test_a_part_listed_twice_is_not_read_twice(exports, tmp_path, capsys, monkeypatch, benchmark):
    folder = crafted(exports, benchmark, tmp_path,
                     manifest=lambda body: {**body, "parts": body["parts"] + body["parts"][:1]})
    line = refused([benchmark, "eval", "--model", "random", "--data", folder, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert "is given twice" in line, line


def test_a_repeated_coda21_group_of_an_official_format_file_is_skipped_and_counted(tmp_path):
    obj = json.loads(json.dumps(SMALL_CODA))
    obj["n"].append(json.loads(json.dumps(obj["n"][0])))
    source = tmp_path / "c.json"
    source.write_text(json.dumps(obj))
    out = tmp_path / "r.json"
    assert main(["coda21", "eval", "--model", "random", "--data", str(source), "--out", str(out)]) == 0
    result = json.loads(out.read_text())
    assert [s["unit"] for s in result["skipped"]] == ["n/2", "n/3"] and result["counts"]["skipped_groups"] == 2
    assert "the same as group n/0's" in result["skipped"][1]["reason"]
    assert len(result["instances"]) == 3  # n/0, n/1, v/0: n/3 is n/0 again, not scored twice


# --- sizes per field --------------------------------------------------------------------------------------------

def _one_group(definition: str) -> dict:
    return {"target": "dog.n.01", "pos": "n", "word": "dog",
            "candidates": [{"synset": "dog.n.01", "word": "dog", "definition": definition},
                           {"synset": "cat.n.01", "word": "cat", "definition": "a cat"}]}


def _zstd_part(rows: list[dict]) -> Callable[[Path], None]:
    """Rewrite a WDLMPro export's first part as a zstd file of ``rows`` (the manifest made to match)."""
    def write(folder: Path) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        from lexprobe.benchmarks.wdlmpro.dataset import ROWS
        from lexprobe.provenance import file_sha256

        body = json.loads((folder / MANIFEST).read_text())
        entry = body["parts"][0]
        path = folder / entry["path"]
        pq.write_table(pa.Table.from_pylist(rows, schema=ROWS.schema()), path, compression="zstd",
                       compression_level=19)
        entry["rows"], entry["sha256"] = len(rows), file_sha256(path)
        (folder / MANIFEST).write_text(json.dumps(body))

    return write


@pytest.mark.parametrize("rows, problem", [
    (lambda: [_one_group("a" * (40 << 20))], "more than wdlmpro-groups/1 allows"),
    (lambda: [_one_group(f"definition {i}") for i in range(3)] + [{**_one_group("b" * (40 << 20)), "target": "x.n.01"}],
     "more than 100 times"),
], ids=["one-row", "among-small-rows"])
def test_a_compressed_giant_field_is_refused_from_the_metadata_before_decompressing(
        exports, tmp_path, capsys, monkeypatch, rows, problem):
    import pyarrow.parquet as pq

    folder = tmp_path / "bomb"
    shutil.copytree(exports["wdlmpro"], folder)
    _zstd_part(rows())(folder)
    path = folder / json.loads((folder / MANIFEST).read_text())["parts"][0]["path"]
    assert path.stat().st_size < (1 << 20)  # a small file holding 40 MB
    monkeypatch.setattr(pq.ParquetFile, "read", lambda *a, **k: pytest.fail("decompressed"))
    monkeypatch.setattr(pq, "read_table", lambda *a, **k: pytest.fail("decompressed"))
    line = refused(["wdlmpro", "eval", "--model", "random", "--data", folder, "--pos", "n", "--out",
                    tmp_path / "r.json"], capsys, monkeypatch)
    assert str(path) in line and "candidates.definition" in line and problem in line, line


def test_a_field_over_its_size_is_refused_on_the_arrow_column_naming_its_row(exports, tmp_path, capsys, monkeypatch):
    folder = tmp_path / "big"
    shutil.copytree(exports["wdlmpro"], folder)
    _zstd_part([_one_group(f"definition {i}") for i in range(3)] + [{**_one_group("c" * 20000), "target": "x.n.01"}])(
        folder)
    line = refused(["wdlmpro", "eval", "--model", "random", "--data", folder, "--pos", "n", "--out",
                    tmp_path / "r.json"], capsys, monkeypatch)
    assert "row 3: candidates[].definition holds 20,000 bytes of text, more than the 8,192" in line, line


def test_a_jsonl_field_over_its_size_is_refused_naming_its_line(tmp_path, capsys, monkeypatch):
    source = tmp_path / "big.jsonl"
    source.write_text(json.dumps(_one_group("d" * 9000)) + "\n")
    line = refused(["wdlmpro", "eval", "--model", "random", "--data", source, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{source}:1:" in line and "candidates[0].definition is not at most 8,192 bytes of text" in line, line


# --- a gold file's byte-order mark ------------------------------------------------------------------------------

def test_a_gold_file_with_a_byte_order_mark_is_named_as_such(tmp_path, capsys, monkeypatch):
    data = write_pair(tmp_path / "data", name="mine")
    gold = data.with_name("mine.gold.key.txt")
    gold.write_bytes(b"\xef\xbb\xbf" + GOLD.encode())
    line = refused(["wsd", "eval", "--model", "random", "--data", data, "--out", tmp_path / "r.json"],
                   capsys, monkeypatch)
    assert f"{gold}:1:" in line and "byte-order mark (BOM)" in line and "without a BOM" in line, line


def test_a_key_file_with_a_byte_order_mark_is_refused_wherever_it_is_read():
    from lexprobe.metrics.wsd import parse_key_lines

    with pytest.raises(DataError, match=r"answers.key:1: the file begins with a UTF-8 byte-order mark"):
        parse_key_lines(["\ufeffd000.s000.t000 art%1:09:00::"], "answers.key")
