"""`lexprobe export hf`: the folder `datasets.load_dataset` reads, its validated card, and the round trip
(`lexprobe <benchmark> eval --data EXPORT` gives the result the original data gives)."""

from __future__ import annotations

import json
import shutil

import pytest

from lexprobe.cli import main
from lexprobe.data.exported import MANIFEST
from lexprobe.errors import DataError
from tests.export.helpers import SMALL_CODA, SMALL_GROUPS, write_small_coda, write_small_wdlmpro
from tests.optional import needs_package

#: what may differ between two runs of the same items: when, how long, the command, the data path and the paths of
#: the files beside the result
VOLATILE = {"run", "timing", "config", "plot", "key_file", "dataset"}


def _export(*args) -> None:
    assert main(["export", "hf", *map(str, args)]) == 0


def _eval(benchmark, data, model, out, *more) -> dict:
    assert main([benchmark, "eval", "--data", str(data), "--model", str(model), "--out", str(out), *more]) == 0
    return json.loads(out.read_text())


def same_result(a: dict, b: dict) -> None:
    """Two results of the same items: every section equal (metrics, intervals, baselines, breakdowns, counts,
    skipped, instances), the items' digest equal; only the run's time, command and data path differ."""
    assert set(a) == set(b)
    for key in set(a) - VOLATILE:
        assert a[key] == b[key], key
    assert a["run"]["items_digest"] == b["run"]["items_digest"]
    assert {k: v for k, v in a["config"].items() if k != "data"} == {k: v for k, v in b["config"].items() if k != "data"}


@pytest.fixture(scope="module")
def wdlmpro_export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("wdlmpro")
    source = write_small_wdlmpro(folder / "small.jsonl")
    _export("wdlmpro", "--data", source, "--out", folder / "export")
    return source, folder / "export"


@pytest.fixture(scope="module")
def coda_export(tmp_path_factory):
    folder = tmp_path_factory.mktemp("coda")
    source = write_small_coda(folder / "small.json")
    _export("coda21", "--data", source, "--out", folder / "export")
    return source, folder / "export"


@pytest.mark.parametrize("model", ["random", "tiny_gpt2"])
def test_wdlmpro_round_trip(model, wdlmpro_export, tmp_path, request):
    source, export = wdlmpro_export
    model = request.getfixturevalue(model) if model != "random" else model
    original = _eval("wdlmpro", source, model, tmp_path / "original.json")
    again = _eval("wdlmpro", export, model, tmp_path / "exported.json")
    same_result(original, again)
    assert len(again["instances"]) == 2 * len(SMALL_GROUPS) and again["metrics"]["w2d"]["all"]["n"] == len(SMALL_GROUPS)


def test_wdlmpro_round_trip_of_one_part_of_speech_and_a_sample(wdlmpro_export, tmp_path):
    source, export = wdlmpro_export
    for i, more in enumerate((["--pos", "v"], ["--limit", "1", "--seed", "3"])):  # each its own --out (no overwrite)
        same_result(_eval("wdlmpro", source, "random", tmp_path / f"a{i}.json", *more),
                    _eval("wdlmpro", export, "random", tmp_path / f"b{i}.json", *more))


@pytest.mark.parametrize("model", ["random", "tiny_gpt2"])
def test_coda21_round_trip_with_the_source_problems(model, coda_export, tmp_path, request):
    source, export = coda_export
    model = request.getfixturevalue(model) if model != "random" else model
    original = _eval("coda21", source, model, tmp_path / "original.json")
    again = _eval("coda21", export, model, tmp_path / "exported.json")
    same_result(original, again)
    assert again["counts"]["skipped_groups"] == 1 and again["skipped"][0]["unit"] == "n/2"  # the malformed group
    assert again["dataset"]["name"] == "CoDA21 small"


def test_coda21_round_trip_on_the_official_files(imported_data, tmp_path):
    """Every official file in the data directory, exported at once; each variant read back (DIR/<variant>)."""
    out = tmp_path / "export"
    _export("coda21", "--out", out)
    variants = sorted(p.name for p in out.iterdir() if p.is_dir())
    assert "clean-hard" in variants
    for variant in variants:  # each its own --out (a result is not replaced by another run's)
        same_result(_eval("coda21", variant, "random", tmp_path / f"a-{variant}.json"),
                    _eval("coda21", out / variant, "random", tmp_path / f"b-{variant}.json"))
    assert main(["coda21", "eval", "--data", str(out), "--model", "random", "--out", str(tmp_path / "c.json")]) == 2
    datasets = needs_package("datasets")
    for config in datasets.get_dataset_config_names(str(out)):  # `load_dataset` reads every configuration
        rows = datasets.load_dataset(str(out), config, split="test")
        assert rows.num_rows > 0 and rows[0]["candidates"][0]["definition"]
    default = datasets.load_dataset(str(out), split="test")
    assert {r["id"][0] for r in default} == {"n", "v"} and default.num_rows == 208  # clean-hard: 106 + 102 groups


def test_load_dataset_reads_every_configuration(wdlmpro_export, coda_export):
    datasets = needs_package("datasets")
    from lexprobe.benchmarks.coda21.dataset import ROWS as CODA_ROWS
    from lexprobe.benchmarks.wdlmpro.dataset import ROWS, group_to_dict

    _, export = wdlmpro_export
    assert datasets.get_dataset_config_names(str(export)) == ["all", "noun", "verb"]
    rows = datasets.load_dataset(str(export), split="test")  # the default configuration: both parts of speech
    assert rows.to_list() == [group_to_dict(g) for g in SMALL_GROUPS]
    assert [r["target"] for r in datasets.load_dataset(str(export), "verb", split="test")] == \
        [g.target for g in SMALL_GROUPS if g.pos == "v"]
    assert rows.features == datasets.Features.from_arrow_schema(ROWS.schema())
    _, coda = coda_export
    assert datasets.get_dataset_config_names(str(coda)) == ["small", "small-noun", "small-verb"]
    groups = datasets.load_dataset(str(coda), split="test")
    assert [g["id"] for g in groups] == ["n/0", "n/1", "v/0"]  # n/2 is malformed: in the manifest, not a row
    assert groups[0]["candidates"][2] == {"synset": "song.n.01", "definition": "a singing by one person",
                                          "context": "one song for the hand", "word": "song"}
    assert groups.features == datasets.Features.from_arrow_schema(CODA_ROWS.schema())


def test_the_card_header_validates(wdlmpro_export, coda_export):
    """The header through huggingface_hub (our check) and through `datasets`' own readers of configs and infos."""
    needs_package("datasets")
    from datasets.info import DatasetInfosDict
    from datasets.utils.metadata import MetadataConfigs
    from huggingface_hub import DatasetCard

    from lexprobe.benchmarks.coda21.dataset import ROWS as CODA_ROWS
    from lexprobe.benchmarks.wdlmpro.dataset import ROWS
    from lexprobe.export.card import check_card

    for (_, folder), rows in ((wdlmpro_export, ROWS), (coda_export, CODA_ROWS)):
        header = check_card(folder, rows.features())
        data = DatasetCard.load(folder / "README.md").data
        configs = MetadataConfigs.from_dataset_card_data(data)
        assert configs.get_default_config_name() == next(c["config_name"] for c in header["configs"] if c.get("default"))
        infos = DatasetInfosDict.from_dataset_card_data(data)
        assert set(infos) == set(configs)
        for info in infos.values():
            assert info.features == __import__("datasets").Features.from_arrow_schema(rows.schema())
            assert info.splits["test"].num_examples > 0
    wdl = check_card(wdlmpro_export[1])
    assert wdl["license"] == "other" and wdl["license_link"].startswith("https://wordnet.princeton.edu")
    assert [s["name"] for s in wdl["lexprobe"]["sources"]][0] == "WordNet 3.0"
    coda = check_card(coda_export[1])
    assert coda["license"] == "unknown"
    text = (coda_export[1] / "README.md").read_text()
    assert "Do not redistribute" in text and SMALL_CODA["canary"] in text and "@inproceedings{senel-etal-2022-coda21" in text


def test_check_card_refuses_what_the_hub_would(coda_export, tmp_path):
    from lexprobe.export.card import check_card

    folder = tmp_path / "copy"
    shutil.copytree(coda_export[1], folder)
    card = folder / "README.md"
    text = card.read_text()
    for old, new, named in (("license: unknown", "license: public-domain-ish", "license"),
                            ("task_categories:\n- multiple-choice", "task_categories:\n- word-guessing", "task category"),
                            ("  default: true\n", "", "default configuration"),
                            ("small/noun/test.parquet", "small/noun/missing.parquet", "files")):
        card.write_text(text.replace(old, new, 1))
        with pytest.raises(DataError, match=named):
            check_card(folder)


def test_an_edited_export_is_refused(coda_export, tmp_path):
    folder = tmp_path / "copy"
    shutil.copytree(coda_export[1], folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    parquet = folder / manifest["parts"][0]["path"]
    parquet.write_bytes(parquet.read_bytes()[:-10] + b"0123456789")
    with pytest.raises(DataError, match="changed since it was exported"):
        from lexprobe.benchmarks.coda21.dataset import load_coda

        load_coda(folder)
    manifest["parts"][0]["path"] = "../elsewhere.parquet"
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(DataError, match="outside the export folder"):
        load_coda(folder)
    (folder / MANIFEST).write_text(json.dumps({**manifest, "rows": "coda21-groups/0"}))
    with pytest.raises(DataError, match="not of coda21"):
        load_coda(folder)


def test_an_export_of_another_benchmark_is_named(wdlmpro_export, tmp_path, capsys):
    _, export = wdlmpro_export
    assert main(["coda21", "eval", "--data", str(export), "--model", "random", "--out", str(tmp_path / "r.json")]) == 2
    assert "is an export of wdlmpro" in capsys.readouterr().err


def test_a_schema_other_than_declared_is_refused(tmp_path):
    """A parquet file whose columns are not the row format's (a hand-made or newer file) is one error at read."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from lexprobe.benchmarks.wdlmpro.dataset import ROWS, load_dataset
    from lexprobe.data.exported import manifest_part, write_manifest

    path = tmp_path / "noun" / "test.parquet"
    path.parent.mkdir()
    pq.write_table(pa.table({"target": ["dog.n.01"], "pos": ["n"]}), path)
    write_manifest(tmp_path, ROWS, [manifest_part({"pos": "n"}, path, tmp_path, 1, [], 0)])
    with pytest.raises(DataError, match="its columns are not wdlmpro-groups/1"):
        load_dataset(tmp_path, "n")
    with pytest.raises(DataError, match="holds no verb groups"):
        load_dataset(tmp_path, "v")


def test_out_must_be_new_and_nothing_is_left_on_failure(wdlmpro_export, tmp_path, capsys):
    source, _ = wdlmpro_export
    full = tmp_path / "full"
    full.mkdir()
    (full / "mine.txt").write_text("keep")
    assert main(["export", "hf", "wdlmpro", "--data", str(source), "--out", str(full)]) == 2
    assert "not empty" in capsys.readouterr().err and [p.name for p in full.iterdir()] == ["mine.txt"]
    assert main(["export", "hf", "wdlmpro", "--data", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "x")]) == 2
    assert "not found" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["full"]  # no staging folder, no half export


def test_parquet_rows_keep_the_canary(coda_export):
    import pyarrow.parquet as pq

    manifest = json.loads((coda_export[1] / MANIFEST).read_text())
    for part in manifest["parts"]:
        meta = pq.read_schema(coda_export[1] / part["path"]).metadata
        assert meta[b"canary"].decode() == SMALL_CODA["canary"]
    assert manifest["parts"][0]["problems"] == [{"group": "n/2", "reason": "candidates is not a list of at least 2 and "
                                                 "at most 1,000 items; target word 'missing' of water.n.01 not "
                                                 "found in its context"}]


@pytest.mark.slow
def test_the_full_wdlmpro_export(tmp_path):
    """Without --data: the full build from WordNet, 51,260 noun and 8,487 verb groups, as datasets reads them."""
    datasets = needs_package("datasets")
    from lexprobe.data.wordnet import wordnet_source_dir

    if wordnet_source_dir() is None:
        pytest.skip("WordNet 3.0 is not installed (apt-get install wordnet-base, or lexprobe data fetch wordnet)")
    out = tmp_path / "wdlmpro"
    _export("wdlmpro", "--out", out)
    manifest = json.loads((out / MANIFEST).read_text())
    assert [(p["key"]["pos"], p["rows"]) for p in manifest["parts"]] == [("n", 51260), ("v", 8487)]
    verbs = datasets.load_dataset(str(out), "verb", split="test")
    assert verbs.num_rows == 8487 and verbs[0]["candidates"][0]["synset"] == verbs[0]["target"]
    header = (out / "README.md").read_text()
    assert "num_examples: 59747" in header and "size_categories:\n- 10K<n<100K" in header


def test_a_malformed_manifest_is_one_error(coda_export, tmp_path):
    from lexprobe.benchmarks.coda21.dataset import load_coda

    folder = tmp_path / "copy"
    shutil.copytree(coda_export[1], folder)
    manifest = json.loads((folder / MANIFEST).read_text())
    for broken in ({**manifest, "parts": [{**manifest["parts"][0], "problems": [{"group": "n/2"}]}]},
                   {**manifest, "parts": [{**manifest["parts"][0], "rows": "many"}]},
                   {**manifest, "format": "lexprobe-export/9"}):
        (folder / MANIFEST).write_text(json.dumps(broken))
        with pytest.raises(DataError, match="lexprobe-export.json is not valid"):
            load_coda(folder)
