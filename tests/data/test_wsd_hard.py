"""Maru et al.'s WSD release (data/wsd_hard.py) on the real files, through `lexprobe data import wsd-hard`: its sets
read as official sets, the published systems' answers reproducing the published F1 on ALL (beside the framework's
Scorer.java) and the release's own scripts' micro and macro F1 on its sets, fetch from a local mirror, and what the
import refuses."""

from __future__ import annotations

import shutil
import threading
from functools import partial
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from lexprobe.cli import main
from lexprobe.data import registry, store, wsd_hard
from lexprobe.data.wsd import load_wsd, read_key_file, read_wsd
from lexprobe.metrics.wsd import macro_f1, score


@pytest.fixture(scope="module")
def hard_data(shared_data, tmp_path_factory) -> Path:
    """A data directory holding the WSD framework and the wsd-hard release, put there by `lexprobe data import`."""
    import os

    if not (shared_data / "wsd-hard").is_dir() or not (shared_data / "wsd-raganato").is_dir():
        pytest.skip("the wsd-hard release or the WSD framework is not in the shared data")
    root = tmp_path_factory.mktemp("wsd-hard-data")
    previous = os.environ.get("LEXPROBE_DATA")
    os.environ["LEXPROBE_DATA"] = str(root)
    try:
        assert main(["data", "import", "wsd", str(shared_data / "wsd-raganato")]) == 0
        assert main(["data", "import", "wsd-hard", str(shared_data / "wsd-hard")]) == 0
    finally:
        os.environ.pop("LEXPROBE_DATA") if previous is None else os.environ.update(LEXPROBE_DATA=previous)
    return root


@pytest.fixture()
def with_hard(hard_data, monkeypatch) -> Path:
    monkeypatch.setenv("LEXPROBE_DATA", str(hard_data))
    return hard_data


#: F1 (%) on ALL as published (the systems' papers; Maru et al. 2022 Table 1)
PUBLISHED_ALL = {"ESCHER": 80.7, "BEM": 79.0, "EWISER": 78.3, "ARES": 77.9, "GlossBERT": 76.9, "Generationary": 76.3,
                 "LMMS": 75.4, "SyntagRank": 71.7}

#: what the release's own scripts print (micro F1, macro F1; two decimals), run at its commit 74ff055 on its files:
#: `python evaluation/evaluate_micro_F1.py --gold_path wsd_hard_benchmark/<set>/<set>.gold.key.txt --pred_path
#: evaluation/predictions/<set>/<system>-predictions.<set>.key.txt` and the same with evaluate_macro_F1.py
RELEASE_SCRIPTS = {
    "ALLamended": {"ARES": (78.99, 75.17), "BEM": (79.50, 75.58), "ESCHER": (81.59, 78.67), "EWISER": (79.21, 75.60),
                   "Generationary": (76.73, 72.22), "GlossBERT": (77.36, 73.15), "SyntagRank": (68.54, 61.42)},
    "S10amended": {"ARES": (81.36, 77.91), "BEM": (82.20, 77.11), "ESCHER": (82.09, 77.99), "EWISER": (81.05, 76.10),
                   "Generationary": (76.96, 72.30), "GlossBERT": (80.42, 75.83), "SyntagRank": (66.70, 63.99)},
    "42D": {"ARES": (37.84, 41.82), "BEM": (47.84, 53.24), "ESCHER": (54.05, 58.99), "EWISER": (40.81, 43.90),
            "Generationary": (48.92, 50.18), "GlossBERT": (41.89, 45.65), "SyntagRank": (28.11, 32.78)},
    "softEN": {"ARES": (83.26, 78.69), "BEM": (84.51, 80.29), "ESCHER": (86.65, 83.68), "EWISER": (83.59, 79.16),
               "Generationary": (81.32, 76.38), "GlossBERT": (81.98, 77.07), "SyntagRank": (71.30, 63.40)},
}


def test_the_release_imports_and_its_sets_are_official_sets(with_hard, tmp_path, capsys):
    assert store.verify("wsd-hard") == ("ok", [])
    for name, count in wsd_hard.COUNTS.items():
        instances = load_wsd(name)
        assert len(instances) == count and {i.set_name for i in instances} == {name}
    # a pinned file is the set whatever it is called; a changed one is a file of one's own, never the set
    src = with_hard / "wsd-hard" / "wsd_hard_benchmark" / "42D"
    copy = tmp_path / "copy"
    copy.mkdir()
    shutil.copyfile(src / "42D.data.xml", copy / "mine.data.xml")
    shutil.copyfile(src / "42D.gold.key.txt", copy / "mine.gold.key.txt")
    assert {i.set_name for i in read_wsd(copy / "mine.data.xml")} == {"42D"}
    shutil.copyfile(src / "42D.data.xml", copy / "42D.data.xml")
    gold = (src / "42D.gold.key.txt").read_text().replace("living%5:00:00:extant:00", "living%3:01:00::", 1)
    (copy / "42D.gold.key.txt").write_text(gold)
    assert {i.set_name for i in read_wsd(copy / "42D.data.xml", say=lambda line: None)} == {"42D-own"}


def test_import_refuses_a_changed_file_and_a_folder_without_the_release(shared_data, tmp_path, capsys):
    source = shared_data / "wsd-hard"
    if not source.is_dir():
        pytest.skip("the wsd-hard release is not in the shared data")
    copy = tmp_path / "release" / "wsd-hard-benchmark-74ff055"
    shutil.copytree(source, copy)
    for p in copy.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    assert main(["data", "import", "wsd-hard", str(copy.parent)]) == 0  # the unzipped archive's parent folder
    assert "importing " in capsys.readouterr().out
    answers = copy / "evaluation" / "predictions" / "42D" / "bem-predictions.42D.key.txt"
    answers.write_text(answers.read_text().replace("%3:01:00::", "%5:00:00:extant:00", 1))
    assert main(["data", "import", "wsd-hard", str(copy)]) == 2
    assert "is not the pinned" in capsys.readouterr().err
    answers.unlink()
    assert main(["data", "import", "wsd-hard", str(copy)]) == 2
    assert "has no evaluation/predictions/42D/bem-predictions.42D.key.txt" in capsys.readouterr().err
    assert main(["data", "import", "wsd-hard", str(tmp_path / "nothing")]) == 2


def test_hardens_instances_are_the_amended_sets_own(with_hard):
    """hardEN's answers come from ALLamended's, S10amended's and 42D's files: its instances must be theirs (same
    id, lemma, part of speech, sentence, target and gold), and softEN the rest."""
    sources = {i.id: i for name in wsd_hard.ANSWERS_OF["hardEN"] for i in load_wsd(name)}
    for name in ("hardEN", "softEN"):
        for inst in load_wsd(name):
            theirs = sources[inst.id]
            assert (inst.lemma, inst.pos, inst.tokens, inst.index, set(inst.gold)) == (
                theirs.lemma, theirs.pos, theirs.tokens, theirs.index, set(theirs.gold))
    assert {i.id for i in load_wsd("hardEN")} | {i.id for i in load_wsd("softEN")} == set(sources)


def _release(name: str) -> dict:
    rows, _ = wsd_hard.release_answers(load_wsd(name))
    return {row.name: row for row in rows}


def test_the_eight_systems_reproduce_their_published_f1_on_all_as_scorer_java_does(with_hard, scorer_java):
    from tests.metrics.test_wsd import java_score

    gold = read_key_file(with_hard / "wsd-raganato" / "ALL" / "ALL.gold.key.txt")
    rows = _release("ALL")
    measured, java = {}, {}
    for name, row in rows.items():
        measured[name] = round(100 * score(gold, row.answers).f1, 1)
        answer_file = with_hard / row.files[0]["file"]
        java[name] = round(100 * java_score(scorer_java, with_hard / "wsd-raganato" / "ALL" / "ALL.gold.key.txt",
                                            answer_file)[2], 1)
    assert measured == PUBLISHED_ALL == java
    assert len(rows["ESCHER"].answers) == 7251  # its released file answers 7,251 of the 7,253 instances


@pytest.mark.parametrize("name", list(RELEASE_SCRIPTS))
def test_micro_and_macro_f1_equal_the_release_scripts_on_its_own_answer_files(with_hard, name):
    gold = {i.id: i.gold for i in load_wsd(name)}
    measured = {system: (round(100 * score(gold, row.answers).f1, 2), round(100 * macro_f1(gold, row.answers), 2))
                for system, row in _release(name).items()}
    assert measured == RELEASE_SCRIPTS[name]


def test_no_system_solves_a_harden_instance_and_the_releases_faults_are_counted(with_hard):
    rows = _release("hardEN")
    assert set(rows) == set(PUBLISHED_ALL) - {"LMMS"}
    gold = {i.id: i.gold for i in load_wsd("hardEN")}
    assert all(len(row.answers) == 476 and score(gold, row.answers).f1 == 0.0 for row in rows.values())
    amended = _release("ALLamended")
    # GlossBERT's and SyntagRank's released ALLamended files name 23 instances that are not ALLamended's: skipped
    assert {n: r.files[0].get("outside_the_set", 0) for n, r in amended.items()} == {
        "ESCHER": 0, "BEM": 0, "EWISER": 0, "ARES": 0, "GlossBERT": 23, "Generationary": 0, "SyntagRank": 23}
    _, absent = wsd_hard.release_answers(load_wsd("42D"))
    assert absent == [{"name": "LMMS", "why": "the release has no LMMS answers for 42D"}]


def test_fetch_wsd_hard_from_a_local_mirror(shared_data, tmp_path, monkeypatch, capsys):
    from tests.data.test_fetch import RangeHandler, _mirror_path

    source = shared_data / "wsd-hard"
    if not source.is_dir():
        pytest.skip("the wsd-hard release is not in the shared data")
    mirror = tmp_path / "mirror"
    ds = registry.DATASETS["wsd-hard"]
    for f in ds.files:
        dest = _mirror_path(mirror, f.url)
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / f.relpath.split("/", 1)[1], dest)
    RangeHandler.drop_after, RangeHandler.drops_left, RangeHandler.log = {}, {}, []
    RangeHandler.ranges = True
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(RangeHandler, directory=str(mirror)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    monkeypatch.setenv("LEXPROBE_DATA_MIRROR", f"http://127.0.0.1:{httpd.server_address[1]}")
    from lexprobe.data import download

    download._unreachable.clear()
    try:
        assert main(["data", "fetch", "wsd-hard", "--no-progress"]) == 0
        assert store.verify("wsd-hard") == ("ok", [])
        assert len(load_wsd("hardEN")) == 476
    finally:
        httpd.shutdown()


from tests.metrics.test_wsd import scorer_java  # noqa: E402,F401  (the compiled Scorer.java fixture)
