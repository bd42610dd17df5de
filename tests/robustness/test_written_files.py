"""Every file a command writes is a declared output and every file it reads a declared input, through
``outputs.guard``: the gold key file read beside a WSD ``<name>.data.xml`` is an input no output may replace (with
or without ``--overwrite``); a file a run writes beside its result (the WSD key file, a plot) does not replace an
existing file unless the earlier result at ``--out`` records it or ``--overwrite`` is given, and the result on disk
records the key file it wrote; a folder written whole (an export) is refused at a linked ``--out`` before any work,
and the staging folder of a writer killed with ``kill -9`` is removed by the next writer.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.data.test_wsd import XML, write_pair
from tests.robustness import run_cli

REPO = Path(__file__).resolve().parents[2]


def one_line(code: int, err: str) -> str:
    assert code == 2 and err.count("\n") == 0 and err.startswith("lexprobe: error:"), (code, err)
    return err


def own_pair(folder: Path, name: str = "ok") -> Path:
    """A framework file pair of one's own (no ``source`` naming an official set): ``<name>.data.xml`` and its gold."""
    return write_pair(folder, xml=XML.replace(' source="senseval2"', ""), name=name)


def wsd_eval(data: Path, out: Path, *more) -> list[str]:
    return ["wsd", "eval", "--model", "random", "--data", data, "--out", out, *more]


def run(argv: list) -> int:
    return main([str(a) for a in argv])


def random_f1(result: Path) -> float:
    return json.loads(result.read_text())["metrics"]["wsd"]["all"]["f1"]


# --- the gold key file read beside the data is an input ----------------------------------------------------

@pytest.mark.parametrize("case", ["key file over the gold", "key file over the gold, --overwrite",
                                  "result over the gold, --overwrite", "key file a link to the gold, --overwrite",
                                  "export over the gold"])
def test_no_output_replaces_the_gold_key_file_read_beside_the_data(case, tmp_path, capsys):
    """``wsd eval --data w/ok.data.xml --out w/ok.gold.json`` once replaced ``w/ok.gold.key.txt`` with the model's
    answers (its key file), and the next run scored random at F1 100 against them."""
    data = own_pair(tmp_path / "w")
    gold = tmp_path / "w" / "ok.gold.key.txt"
    before = gold.read_bytes()
    argv = {"key file over the gold": wsd_eval(data, tmp_path / "w" / "ok.gold.json"),
            "key file over the gold, --overwrite": wsd_eval(data, tmp_path / "w" / "ok.gold.json", "--overwrite"),
            "result over the gold, --overwrite": wsd_eval(data, gold, "--overwrite"),
            "key file a link to the gold, --overwrite": wsd_eval(data, tmp_path / "r.json", "--overwrite"),
            "export over the gold": ["export", "hf", "wsd", "--data", data, "--out", gold]}[case]
    if "link" in case:
        (tmp_path / "r.key.txt").symlink_to(gold)
    err = one_line(*run_cli(argv, capsys))
    assert "--data (its gold key file)" in err and "would destroy the input" in err, err
    assert gold.read_bytes() == before
    assert not (tmp_path / "w" / "ok.gold.json").exists()
    assert run(wsd_eval(data, tmp_path / "fine.json")) == 0  # the next run scores against the real gold
    assert random_f1(tmp_path / "fine.json") < 1.0


def test_the_api_refuses_an_output_over_the_gold_key_file_too(tmp_path):
    """Another caller: ``evaluate`` guards the same declared inputs (the config's ``--data`` reads its gold)."""
    from lexprobe.api import evaluate, load_scorer
    from lexprobe.benchmarks.wsd.config import WsdConfig
    from lexprobe.errors import OutputError

    data = own_pair(tmp_path)
    gold = tmp_path / "ok.gold.key.txt"
    before = gold.read_bytes()
    with pytest.raises(OutputError, match="its gold key file"):
        evaluate("wsd", load_scorer("random"), WsdConfig(data=str(data)), tmp_path / "ok.gold.json", overwrite=True)
    assert gold.read_bytes() == before


def test_an_output_over_the_gold_key_file_of_an_official_set_copied_out_is_refused(imported_data, tmp_path, capsys):
    """The real framework's senseval2 pair, copied out of the data directory: the key file of ``--out
    senseval2.gold.json`` is its gold."""
    from lexprobe.data.wsd import default_root, set_files

    xml, gold = set_files(default_root(), "senseval2")
    shutil.copy(xml, tmp_path / xml.name)
    shutil.copy(gold, tmp_path / gold.name)
    before = (tmp_path / gold.name).read_bytes()
    err = one_line(*run_cli(wsd_eval(tmp_path / xml.name, tmp_path / "senseval2.gold.json", "--limit", "3"), capsys))
    assert "gold key file" in err
    assert (tmp_path / gold.name).read_bytes() == before


def test_an_output_inside_the_export_a_sub_folder_belongs_to_is_refused(tmp_path, capsys):
    """``--data EXPORT/SET`` reads the whole export (its manifest lists the parts): an output there, the manifest
    included, is inside an input."""
    data = own_pair(tmp_path / "src")
    export = tmp_path / "export"
    assert run(["export", "hf", "wsd", "--data", data, "--out", export]) == 0
    manifest = export / "lexprobe-export.json"
    before = manifest.read_bytes()
    err = one_line(*run_cli(wsd_eval(export / "ok", manifest, "--overwrite"), capsys))
    assert "the export it belongs to" in err
    assert manifest.read_bytes() == before


# --- files beside a result: never over a file the earlier result does not record ---------------------------

def wdlmpro_data(tmp_path: Path) -> Path:
    from tests.human.helpers import wdlmpro_data as write

    return write(tmp_path)


@pytest.mark.parametrize("writer", ["wsd key file", "wdlmpro default plot", "wdlmpro --plot"])
def test_a_file_beside_the_result_is_not_replaced_without_overwrite(writer, tmp_path, capsys):
    """``echo notes > r.key.txt; lexprobe wsd eval ... --out r.json`` once replaced the notes with the key file."""
    out = tmp_path / "r.json"
    if writer == "wsd key file":
        mine, argv = tmp_path / "r.key.txt", wsd_eval(own_pair(tmp_path / "w"), out)
    else:
        mine = tmp_path / ("r.png" if writer == "wdlmpro default plot" else "p.png")
        argv = ["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out]
        argv += ["--plot", mine] if writer == "wdlmpro --plot" else []
    mine.write_text("notes\n")
    err = one_line(*run_cli(argv, capsys))
    assert str(mine) in err and "--overwrite" in err
    assert mine.read_text() == "notes\n" and not out.exists()
    assert run([*argv, "--overwrite"]) == 0  # asked for: replaced
    assert mine.read_bytes() != b"notes\n"
    recorded = json.loads(out.read_text())
    assert Path(recorded["key_file" if writer == "wsd key file" else "plot"]) == mine
    assert run(argv) == 0  # the same job again: its own files, recorded, are rewritten


def test_the_api_keeps_a_file_beside_the_result_too(tmp_path):
    from lexprobe.api import evaluate, load_scorer
    from lexprobe.benchmarks.wsd.config import WsdConfig
    from lexprobe.errors import OutputError

    data = own_pair(tmp_path / "w")
    (tmp_path / "r.key.txt").write_text("notes\n")
    with pytest.raises(OutputError, match="r.key.txt exists"):
        evaluate("wsd", load_scorer("random"), WsdConfig(data=str(data)), tmp_path / "r.json")
    assert (tmp_path / "r.key.txt").read_text() == "notes\n" and not (tmp_path / "r.json").exists()


def test_the_result_on_disk_records_its_key_file(tmp_path):
    """The key file's path was set in the result after the file was written, and never reached the disk."""
    data = own_pair(tmp_path / "w")
    out = tmp_path / "r.json"
    assert run(wsd_eval(data, out)) == 0
    key_file = Path(json.loads(out.read_text())["key_file"])
    assert key_file == tmp_path / "r.key.txt" and key_file.read_text().startswith("d000.s000.t000 ")


def test_a_choose_run_writes_no_key_file_and_keeps_a_file_of_that_name(tmp_path, tiny_gpt2):
    """A method that writes nothing beside its result declares nothing there: ``--method choose`` leaves a file
    named like a key file alone, and its result names none."""
    data = own_pair(tmp_path / "w")
    (tmp_path / "r.key.txt").write_text("notes\n")
    assert main(["wsd", "eval", "--model", str(tiny_gpt2), "--method", "choose", "--data", str(data),
                 "--out", str(tmp_path / "r.json")]) == 0
    assert (tmp_path / "r.key.txt").read_text() == "notes\n"
    assert "key_file" not in json.loads((tmp_path / "r.json").read_text())


# --- folders written whole ------------------------------------------------------------------------------

def _never(*_a, **_k):
    pytest.fail("the export read its data although --out is refused")


@pytest.mark.parametrize("command", ["hf wdlmpro", "lm-eval wdlmpro", "hf wsd"])
@pytest.mark.parametrize("link", ["to an empty folder", "dangling"])
def test_an_export_to_a_linked_out_is_refused_before_any_work(command, link, tmp_path, capsys, monkeypatch):
    """``ln -s emptydir out; lexprobe export hf wdlmpro --data small --out out`` once did the whole export, then
    stopped with ``NotADirectoryError`` (the folder is put in place by a rename, which cannot fill a link)."""
    benchmark = command.split()[1]
    data = own_pair(tmp_path / "w") if benchmark == "wsd" else wdlmpro_data(tmp_path)
    monkeypatch.setattr(f"lexprobe.benchmarks.{benchmark}.export.select", _never)
    target = tmp_path / "emptydir"
    if link == "to an empty folder":
        target.mkdir()
    out = tmp_path / "out"
    out.symlink_to(target, target_is_directory=True)
    err = one_line(*run_cli(["export", *command.split(), "--data", data, "--out", out], capsys))
    assert "--out" in err and "is a link" in err
    assert out.is_symlink() and (not target.exists() or not any(target.iterdir()))
    assert not _staging(tmp_path)


def _export_killed_while_writing(out: Path, data: Path) -> subprocess.Popen:
    """``lexprobe export hf wdlmpro`` in another process, stopped (``kill -9``) while it writes its parts."""
    code = textwrap.dedent(f"""
        import sys, time
        import lexprobe.data.exported as exported
        write_part = exported.write_part
        def slow(*args, **kwargs):
            size = write_part(*args, **kwargs)
            print("writing", flush=True)
            time.sleep(120)
            return size
        exported.write_part = slow
        from lexprobe.cli import main
        sys.exit(main(["export", "hf", "wdlmpro", "--data", {str(data)!r}, "--out", {str(out)!r}]))
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    assert process.stdout is not None and process.stdout.readline().strip() == "writing"
    return process


def _staging(folder: Path) -> list[str]:
    """What a writer left in ``folder`` besides its outputs: hidden names (staging folders, their locks)."""
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("next_out", ["the same --out", "another --out beside it"])
def test_a_killed_exports_staging_is_removed_by_the_next_export(next_out, tmp_path):
    data = wdlmpro_data(tmp_path)
    out = tmp_path / "exp"
    process = _export_killed_while_writing(out, data)
    try:
        assert f".exp.partial-{process.pid}" in _staging(tmp_path)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert _staging(tmp_path) and not out.exists()  # what kill -9 leaves
    again = out if next_out == "the same --out" else tmp_path / "other"
    assert main(["export", "hf", "wdlmpro", "--data", str(data), "--out", str(again)]) == 0
    assert _staging(tmp_path) == []
    assert (again / "lexprobe-export.json").is_file()


def test_a_live_writers_staging_is_left_alone(tmp_path):
    data = wdlmpro_data(tmp_path)
    process = _export_killed_while_writing(tmp_path / "exp", data)
    try:
        assert main(["export", "hf", "wdlmpro", "--data", str(data), "--out", str(tmp_path / "other")]) == 0
        assert _staging(tmp_path) == [f".exp.partial-{process.pid}", f".exp.partial-{process.pid}.lock"]
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()


def test_a_killed_writers_staging_inside_a_folder_is_removed_by_the_next_writer(tmp_path):
    """The other staging writer (``files_into``: a library's files renamed into a folder, the fine-tuned
    encoder's): its staging inside the folder is removed the same way."""
    folder = tmp_path / "finetuned"
    code = textwrap.dedent(f"""
        import time
        from lexprobe.outputs import files_into
        with files_into({str(folder)!r}) as staging:
            (staging / "weights.bin").write_bytes(b"half")
            print("writing", flush=True)
            time.sleep(120)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "writing"
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait()
    assert _staging(folder)
    from lexprobe.outputs import files_into

    with files_into(folder) as staging:
        (staging / "config.json").write_text("{}")
    assert sorted(p.name for p in folder.iterdir()) == ["config.json"]
