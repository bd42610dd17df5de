"""Official set labels only for the framework's pinned files (``data.wsd.official_set``, by SHA-256) and for an
export's rows that are their instances: a file of one's own is never reported in an official set's column,
whatever its name, its ``<corpus source>`` or its ids' prefix."""

from __future__ import annotations

import json
import shutil

import pytest

from lexprobe.cli import main
from lexprobe.data.exported import MANIFEST
from lexprobe.data.wsd import read_export, read_wsd
from tests.data.test_row_validation import crafted
from tests.data.test_wsd import GOLD, XML, write_pair

ONE = """<?xml version="1.0" encoding="UTF-8" ?>
<corpus lang="en" source="{source}">
<text id="{prefix}d000">
<sentence id="{prefix}d000.s000">
<wf lemma="the" pos="DET">The</wf>
<instance id="{prefix}d000.s000.t000" lemma="art" pos="NOUN">art</instance>
</sentence>
</text>
</corpus>
"""


def _eval(data, out) -> dict:
    assert main(["wsd", "eval", "--model", "random", "--data", str(data), "--out", str(out)]) == 0
    return json.loads(out.read_text())


@pytest.mark.parametrize("name, source, prefix, label", [
    ("senseval2", "mine", "", "senseval2-own"),  # named as an official set
    ("mine", "senseval2", "", "mine"),  # <corpus source="senseval2">
    ("mine", "mine", "senseval2.", "mine"),  # ids of ALL's form
    ("ALL", "senseval2-senseval3-semeval2007-semeval2013-semeval2015", "semeval2015.", "ALL-own"),
])
def test_a_file_of_ones_own_is_never_reported_as_an_official_set(tmp_path, capsys, name, source, prefix, label):
    data = write_pair(tmp_path / "mydir", ONE.format(source=source, prefix=prefix),
                      f"{prefix}d000.s000.t000 art%1:09:00::\n", name=name)
    result = _eval(data, tmp_path / "r.json")
    assert [r["set"] for r in result["instances"]] == [label]
    assert set(result["metrics"]["wsd"]) == {label, "N", "all"}
    out, err = capsys.readouterr()
    table = out.split("\n\n")[0]
    assert "SE2" not in table and "SE15" not in table and "ALL " not in table.splitlines()[1]
    assert (f"reported as the set {label!r}" in err) == (label != name)  # said where the name is changed


def test_the_pinned_files_are_official_by_their_bytes_whatever_they_are_called(shared_data, tmp_path, capsys):
    source = shared_data / "wsd-raganato" / "semeval2007"
    copy = tmp_path / "copy.data.xml"
    shutil.copyfile(source / "semeval2007.data.xml", copy)
    shutil.copyfile(source / "semeval2007.gold.key.txt", tmp_path / "copy.gold.key.txt")
    assert {i.set_name for i in read_wsd(copy)} == {"semeval2007"}
    gold = tmp_path / "copy.gold.key.txt"  # one gold line changed: no longer the framework's set
    lines = gold.read_text().splitlines(keepends=True)
    gold.write_text("".join([lines[0].rstrip("\n") + " art%1:09:00::\n", *lines[1:]]))
    assert {i.set_name for i in read_wsd(copy)} == {"copy"}
    named = tmp_path / "semeval2007.data.xml"
    shutil.copyfile(copy, named)
    shutil.copyfile(gold, tmp_path / "semeval2007.gold.key.txt")
    capsys.readouterr()
    assert {i.set_name for i in read_wsd(named)} == {"semeval2007-own"}
    assert "is not the framework's pinned semeval2007" in capsys.readouterr().err


@pytest.fixture(scope="module")
def mini_export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mini")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("LEXPROBE_DATA", str(folder / "data-dir"))
        env.setenv("LEXPROBE_CACHE", str(folder / "cache"))
        data = write_pair(folder / "data", XML, GOLD, name="mini")
        assert main(["export", "hf", "wsd", "--data", str(data), "--out", str(folder / "export")]) == 0
    return {"wsd": folder / "export"}


def test_an_export_row_named_as_an_official_set_is_checked_against_it(mini_export, tmp_path, capsys):
    def official(body: dict) -> dict:
        for part in body["parts"]:
            part["key"] = {"set": "senseval2"}
        return body

    folder = crafted(mini_export, "wsd", tmp_path, lambda rows: [{**r, "set": "senseval2"} for r in rows], official)
    said: list[str] = []
    assert {i.set_name for i in read_export(folder, say=said.append)} == {"senseval2-own"}
    assert len(said) == 1 and "not the framework's pinned senseval2 instances" in said[0]
    result = _eval(folder, tmp_path / "r.json")
    assert {r["set"] for r in result["instances"]} == {"senseval2-own"} and "senseval2" not in result["metrics"]["wsd"]


@pytest.mark.slow
def test_an_export_of_the_framework_keeps_its_set_names(imported_data, tmp_path, monkeypatch):
    """A whole set: by its pinned content digest, with or without the framework at hand; a sample of it: row by
    row against the framework in the data directory, and not official without it."""
    whole, sample = tmp_path / "whole", tmp_path / "sample"
    assert main(["export", "hf", "wsd", "--data", "semeval2007", "--out", str(whole)]) == 0
    assert main(["export", "hf", "wsd", "--data", "semeval2007", "--limit", "5", "--out", str(sample)]) == 0
    said: list[str] = []
    assert {i.set_name for i in read_export(whole, say=said.append)} == {"semeval2007"}
    assert {i.set_name for i in read_export(sample, say=said.append)} == {"semeval2007"} and said == []
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "empty"))
    assert {i.set_name for i in read_export(whole, say=said.append)} == {"semeval2007"} and said == []
    assert {i.set_name for i in read_export(sample, say=said.append)} == {"semeval2007-own"} and len(said) == 1
    assert json.loads((sample / MANIFEST).read_text())["parts"][0]["rows"] == 5
