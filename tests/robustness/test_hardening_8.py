"""Issue #26 D1, D2, D3, D4, D5, D6, D12, D15, D16, D17, D20, D21, D23, and the classes behind them.

Each ``test_D<n>_...`` fails on the code before the fix (d7b2e00 + the #26 helpers before this one):
a run A -> B -> A lost A's finished units (and the embedding store's older ``.stale`` was removed);
``--out`` could replace the ``--template`` file; a byte of argv that is not UTF-8 made the result
impossible to write; ``lexprobe run``'s parts took no ``<out>.lock``; the SemCor cache was a pickle
(a planted file ran code); locks and resume logs were opened through links; a dataset linked into
the data directory escaped its pin; ``compare --json`` and ``report --out`` were checked after the
work or never; a read-only ``LEXPROBE_CACHE`` was a traceback; a 237-byte ``--out`` failed at its
lock after the model loaded; ``report DIR`` hung on a FIFO; two first builds of the WordNet groups
shared one ``.tmp``; a SIGTERM during a GGUF conversion left its temporary copy forever.

The ``test_class_...`` tests hold the classes closed: a new path option declared an input is
guarded with no other code, and no pickle is left in the package.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.robustness import run_cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_notices(monkeypatch):
    """The read-only cache notice is said once per process; each test is a process of its own here."""
    import lexprobe.cache

    monkeypatch.setattr(lexprobe.cache, "_NOTICED", set(), raising=False)


def one_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.startswith("lexprobe: error")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def wdlmpro_data(tmp_path: Path) -> Path:
    from tests.human.helpers import wdlmpro_data as write

    return write(tmp_path)


def _mount(folder: Path, options: str) -> None:
    if os.geteuid() != 0 or not shutil.which("mount"):
        pytest.skip("a read-only file system needs root and mount (root ignores file modes)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"{options},size=4m", "tmpfs", str(folder)],
                          capture_output=True)
    if done.returncode != 0:
        pytest.skip("root without the right to mount: no read-only folder to test with")


@pytest.fixture
def read_only_folder(tmp_path):
    """An empty folder on a read-only file system (a real one: root writes through file modes)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    _mount(folder, "ro")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


@pytest.fixture
def remountable_folder(tmp_path):
    """A tmpfs folder the test fills and then remounts read-only (``remount_read_only``)."""
    folder = tmp_path / "fs"
    folder.mkdir()
    _mount(folder, "rw")
    yield folder
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def remount_read_only(folder: Path) -> None:
    subprocess.run(["mount", "-o", "remount,ro", str(folder)], check=True, capture_output=True)


# --- D1: setting a log aside never destroys an older one ----------------------------------------------

def test_D1_a_run_A_then_B_then_A_keeps_and_resumes_A(tmp_path):
    from lexprobe.cache import ResumeLog, partial_path

    log = partial_path(tmp_path / "r.json")
    notices: list[str] = []
    with ResumeLog(log, {"recipe": "paper"}, notices.append) as a:
        assert a.load() == {}
        a.append("u1", 1)
        a.append("u2", 2)  # Ctrl-C here
    with ResumeLog(log, {"recipe": "authors"}, notices.append) as b:
        assert b.load() == {}  # A set aside
        b.append("u1", 10)  # Ctrl-C here
    with ResumeLog(log, {"recipe": "paper"}, notices.append) as a_again:
        assert a_again.load() == {"u1": 1, "u2": 2}  # A's finished units are back
    stale = sorted(p.name for p in tmp_path.iterdir() if ".stale" in p.name)
    assert stale == ["r.json.partial.jsonl.stale.1"], stale  # B's log, kept beside
    assert '"u1"' in (tmp_path / stale[0]).read_text() and "resumed" in notices[-1]


def test_D1_set_aside_numbers_instead_of_replacing(tmp_path):
    from lexprobe.outputs import set_aside

    for n in range(3):
        (tmp_path / "x.log").write_text(f"run {n}")
        set_aside(tmp_path / "x.log")
    assert [(tmp_path / name).read_text() for name in ("x.log.stale", "x.log.stale.1", "x.log.stale.2")] == \
        ["run 0", "run 1", "run 2"]


def test_D1_the_embedding_store_never_removes_an_older_stale_store(tmp_path):
    from lexprobe.benchmarks.senserank.store import EmbeddingStore

    root = tmp_path / "r.json.embeddings"
    for identity in ({"model": "A"}, {"model": "B"}, {"model": "A"}):
        store = EmbeddingStore(root, identity)
        store.prepare()
        (root / f"rows-of-{identity['model']}").write_text("vectors")  # what a run computed
    kept = sorted(p.name for q in tmp_path.iterdir() if q.name.startswith(root.name + ".stale") for p in q.iterdir())
    assert kept.count("rows-of-A") == 1 and kept.count("rows-of-B") == 1, kept  # both earlier stores are kept


# --- D2 and the class: a declared input is never an output -------------------------------------------

def test_D2_template_as_out_is_refused_and_kept(tmp_path, capsys):
    template = tmp_path / "t.json"
    template.write_text(json.dumps({"name": "mine"}))
    before = template.read_bytes()
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--method", "choose",
                         "--template", template, "--out", template], capsys)
    line = one_line(err)
    assert code == 2 and "--template" in line and "input" in line, line
    assert template.read_bytes() == before


def test_D2_evaluate_refuses_the_template_as_out_too(tmp_path, tiny_gpt2):
    from lexprobe.core.evaluate import evaluate
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.errors import OutputError
    from lexprobe.models import load_scorer
    from lexprobe.prompting.choose_cli import ChooseOptions

    template = tmp_path / "t.json"
    template.write_text(json.dumps({"name": "mine"}))
    config = WDLMProConfig(data=str(wdlmpro_data(tmp_path)), method="choose", choose=ChooseOptions(template=str(template)))
    with pytest.raises(OutputError, match="--template"):
        evaluate("wdlmpro", load_scorer(str(tiny_gpt2)), config, template)


def _glossary_benchmark():
    from lexprobe.core.options import option
    from lexprobe.outputs import INPUT
    from tests.toy_benchmark import TOY, ToyConfig

    @dataclasses.dataclass(frozen=True)
    class Config(ToyConfig):
        glossary: str | None = option(None, "a word list the toy reads", path=INPUT, key=False)

    return dataclasses.replace(TOY, meta=dataclasses.replace(TOY.meta, name="glossary"), Config=Config)


def test_class_a_new_path_option_declared_an_input_is_guarded_without_other_code(tmp_path, capsys, monkeypatch):
    from lexprobe.core import registry

    monkeypatch.setitem(registry.REGISTRY, "glossary", _glossary_benchmark())
    words = tmp_path / "words.txt"
    words.write_text("dog\ncat\n")
    code, err = run_cli(["glossary", "eval", "--model", "random", "--glossary", words, "--out", words], capsys)
    line = one_line(err)
    assert code == 2 and "--glossary" in line and "input" in line, line
    assert words.read_text() == "dog\ncat\n"
    link = tmp_path / "link.json"
    link.symlink_to(words)  # through a link too
    code, err = run_cli(["glossary", "eval", "--model", "random", "--glossary", words, "--out", link], capsys)
    assert code == 2 and "--glossary" in one_line(err)
    assert run_cli(["glossary", "eval", "--model", "random", "--glossary", words, "--out", tmp_path / "r.json"],
                   capsys)[0] == 0


def test_class_the_declared_paths_of_a_config_include_nested_groups():
    from lexprobe.core.options import declared_paths
    from lexprobe.benchmarks.wdlmpro.config import WDLMProConfig
    from lexprobe.outputs import INPUT, OUTPUT

    kinds = {d.option: d.kind for d in declared_paths(WDLMProConfig())}
    assert kinds["--template"] == INPUT and kinds["--data"] == INPUT and kinds["--plot"] == OUTPUT


# --- D3: any bytes in argv ------------------------------------------------------------------------------

def test_D3_a_byte_that_is_not_utf8_in_out_and_data_still_writes_the_result(tmp_path, capsys, monkeypatch):
    data = tmp_path / os.fsdecode(b"d\xff.jsonl")
    shutil.copy(wdlmpro_data(tmp_path), data)
    out = tmp_path / os.fsdecode(b"r\xff.json")
    argv = ["wdlmpro", "eval", "--model", "random", "--data", str(data), "--out", str(out)]
    monkeypatch.setattr(sys, "argv", ["lexprobe", *argv])
    code, err = run_cli(argv, capsys)
    assert code == 0, err
    result = json.loads(out.read_bytes())
    assert result["config"]["data"] == str(data)  # the JSON escape reads back as the same path
    run = result["run"]
    assert "\\xff" in run["command"] and run["command"].encode("utf-8")
    assert [base64.b64decode(a) for a in run["argv_bytes_b64"]][-1] == os.fsencode(str(out))


# --- D4: every writer of an output takes its lock --------------------------------------------------------

def test_D4_a_run_part_takes_the_out_lock_like_eval(tmp_path):
    import fcntl

    from lexprobe.core.contract import RunPart
    from lexprobe.benchmarks.wdlmpro import cli as wcli
    from lexprobe.errors import OutputBusyError

    out = tmp_path / "rr" / "wdlmpro.json"
    out.parent.mkdir()
    out.write_text("the result of a concurrent `wdlmpro eval --out rr/wdlmpro.json`")
    fd = os.open(f"{out}.lock", os.O_RDWR | os.O_CREAT)  # that eval is still writing
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        with pytest.raises(OutputBusyError, match="wdlmpro.json.lock"):
            wcli.run_default(out.parent, RunPart(model="random"))
    finally:
        os.close(fd)
    assert out.read_text().startswith("the result of a concurrent")


# --- D5 and the class: no pickle ---------------------------------------------------------------------------

class _Payload:
    def __reduce__(self):
        return (os.system, (f"touch {os.environ['LEXPROBE_CACHE']}/PWNED",))


def test_D5_a_planted_semcor_cache_runs_no_code(tmp_path):
    import pickle  # the attacker's tool, only to plant the file

    from lexprobe.data import semcor

    archive = semcor.sample_archive()
    cache = semcor._cache_file(archive)
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(_Payload()))
    sentences = list(semcor.iter_semcor_sentences(archive))
    assert not (Path(os.environ["LEXPROBE_CACHE"]) / "PWNED").exists()
    assert sentences and all(isinstance(s, semcor.SemcorSentence) for s in sentences)
    assert list(semcor.iter_semcor_sentences(archive)) == sentences  # read back from the (JSON) cache
    assert json.loads(cache.read_bytes().split(b"\n", 1)[1])["format"] == semcor._CACHE_FORMAT


def test_D5_a_cache_of_the_wrong_shape_is_parsed_again(tmp_path):
    from lexprobe.cache import cache_entry
    from lexprobe.data import semcor

    archive = semcor.sample_archive()
    good = list(semcor.iter_semcor_sentences(archive))
    cache = semcor._cache_file(archive)
    data = json.loads(cache.read_bytes().split(b"\n", 1)[1])
    data["sentences"][0][3] = [[1, "x", "NN", 5, False, ""]]  # a sense key that is not a string
    cache.write_bytes(cache_entry(data, {"cache": "semcor-sentences", "key": semcor._cache_key(archive)}))
    assert list(semcor.iter_semcor_sentences(archive)) == good


def test_class_no_pickle_anywhere_in_the_package():
    pattern = re.compile(r"\bimport pickle\b|\bpickle\.(load|loads|dump|dumps|Unpickler)\b|torch\.load\b|"
                         r"allow_pickle\s*=\s*True|\bimport (c|_)?pickle\b|from pickle import|\bdill\b|joblib\.load")
    found = [f"{p.relative_to(REPO)}:{n}" for p in sorted((REPO / "lexprobe").rglob("*.py"))
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert not found, found


# --- D6: files lexprobe creates are never opened through links --------------------------------------------

@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_D6_a_lock_that_is_a_link_is_refused_and_its_target_kept(link, tmp_path, capsys):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "s.json"
    lock = tmp_path / "s.json.partial.jsonl.lock"
    lock.symlink_to(victim) if link == "symlink" else os.link(victim, lock)
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                        capsys)
    line = one_line(err)
    assert code == 2 and "link" in line and lock.name in line, line
    assert victim.read_text() == "precious" and not out.exists()


def test_D6_a_dangling_log_link_creates_no_target(tmp_path, capsys):
    target = tmp_path / "elsewhere" / "planted.txt"
    target.parent.mkdir()
    out = tmp_path / "s.json"
    (tmp_path / "s.json.partial.jsonl").symlink_to(target)
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                        capsys)
    assert code == 2 and "link" in one_line(err)
    assert not target.exists()


def test_D6_the_output_lock_is_never_taken_through_a_link(tmp_path):
    from lexprobe.errors import OutputError
    from lexprobe.outputs import output_lock

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (tmp_path / "r.json.lock").symlink_to(victim)
    with pytest.raises(OutputError, match="symbolic link"):
        with output_lock(tmp_path / "r.json"):
            pass
    assert victim.read_text() == "precious"


# --- D12: a dataset linked into the data directory keeps its pin ------------------------------------------

def test_D12_a_dataset_symlinked_into_the_data_directory_is_checked_against_its_pin(shared_data, tmp_path, capsys):
    from lexprobe.data import registry

    assert main(["data", "import", "coda21-clean-hard", str(shared_data / "coda21" / "CoDA-clean-hard.json")]) == 0
    official = registry.data_dir() / "coda21" / "CoDA-clean-hard.json"
    obj = json.loads(official.read_text())
    obj["n"] = obj["n"][:3]
    modified = tmp_path / "modified.json"
    modified.write_text(json.dumps(obj))
    official.unlink()
    official.symlink_to(modified)
    code, err = run_cli(["coda", "eval", "--data", "clean-hard", "--model", "random", "--out", tmp_path / "r.json"],
                        capsys)
    assert code == 2 and "changed since" in one_line(err)
    assert not (tmp_path / "r.json").exists()


# --- D15: report --out and compare --json are checked before the work ----------------------------------------

def _two_results(tmp_path, capsys) -> tuple[Path, Path]:
    data = wdlmpro_data(tmp_path)
    paths = []
    for seed in ("0", "1"):
        out = tmp_path / f"r{seed}.json"
        assert run_cli(["wdlmpro", "eval", "--model", "random", "--seed", seed, "--data", data, "--out", out],
                       capsys)[0] == 0
        paths.append(out)
    return paths[0], paths[1]


def test_D15_compare_json_into_a_folder_is_refused_before_the_comparison(tmp_path, capsys, monkeypatch):
    import lexprobe.report.compare as comp

    a, b = _two_results(tmp_path, capsys)
    monkeypatch.setattr(comp, "compare_files", lambda *x: pytest.fail("compared before --json was checked"))
    folder = tmp_path / "somedir"
    folder.mkdir()
    code, err = run_cli(["compare", a, b, "--json", folder], capsys)
    assert code == 2 and "--json" in one_line(err) and "folder" in err


def test_D15_report_and_compare_outputs_in_a_read_only_folder_are_one_line(tmp_path, capsys, read_only_folder,
                                                                           monkeypatch):
    import lexprobe.report.build as build
    import lexprobe.report.compare as comp

    a, b = _two_results(tmp_path, capsys)
    monkeypatch.setattr(comp, "compare_files", lambda *x: pytest.fail("compared before --json was checked"))
    monkeypatch.setattr(build, "write_report", lambda *x: pytest.fail("reported before --out was checked"))
    code, err = run_cli(["compare", a, b, "--json", read_only_folder / "c.json"], capsys)
    assert code == 2 and "--json" in one_line(err) and "writ" in err
    code, err = run_cli(["report", a, b, "--out", read_only_folder / "rep"], capsys)
    assert code == 2 and "--out" in one_line(err)


# --- D16: a read-only cache ---------------------------------------------------------------------------

def test_D16_an_empty_read_only_cache_works_without_storing(tmp_path, capsys, read_only_folder, monkeypatch):
    monkeypatch.setenv("LEXPROBE_CACHE", str(read_only_folder / "cache"))
    monkeypatch.delenv("LEXPROBE_NLTK_DATA", raising=False)  # WordNet would be copied into the cache
    from lexprobe.data import wordnet

    wordnet.load_wordnet.cache_clear()
    try:
        code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path),
                             "--out", tmp_path / "r.json"], capsys)
    finally:
        wordnet.load_wordnet.cache_clear()
    assert code == 0, err
    assert "Traceback" not in err and "cache cannot be written" in err
    assert (tmp_path / "r.json").exists()


def test_D16_a_prefilled_read_only_cache_is_read(tmp_path, remountable_folder, monkeypatch):
    from lexprobe.benchmarks.wdlmpro import dataset
    from lexprobe.benchmarks.wdlmpro.dataset import load_groups
    from lexprobe.cache import cache_entry, write_cache_file

    monkeypatch.setenv("LEXPROBE_CACHE", str(remountable_folder))
    groups = [g for g in load_groups(wdlmpro_data(tmp_path)) if g.pos == "v"]
    write_cache_file(dataset._cache_path("v", False),
                     cache_entry(dataset._cache_rows(groups), dataset._cache_inputs("v", False)))
    remount_read_only(remountable_folder)
    monkeypatch.setattr(dataset, "build_groups", lambda *a, **k: pytest.fail("the shared cache was not read"))
    assert [g.target for g in dataset.default_dataset("v", progress=False)] == [g.target for g in groups]


# --- D17: a long --out name ------------------------------------------------------------------------------------

@pytest.mark.parametrize("length", [237, 239, 250])
def test_D17_a_name_too_long_for_its_lock_is_one_line_before_any_work(length, tmp_path, capsys, monkeypatch):
    from lexprobe.core import cli_common

    monkeypatch.setattr(cli_common, "scorer_from_args", lambda *a, **k: pytest.fail("the model loaded"))
    out = tmp_path / ("a" * (length - 5) + ".json")
    code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                        capsys)
    line = one_line(err)
    assert code == 2 and "bytes" in line and "not writable" not in line, line


def test_D17_a_name_that_leaves_room_for_every_derived_name_runs(tmp_path, capsys):
    from lexprobe.outputs import DERIVED_NAME_RESERVE

    out = tmp_path / ("a" * (255 - DERIVED_NAME_RESERVE - 5) + ".json")
    assert run_cli(["wdlmpro", "eval", "--model", "random", "--data", wdlmpro_data(tmp_path), "--out", out],
                   capsys)[0] == 0
    assert out.exists()


# --- D20: report DIR and a FIFO ------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_D20_report_dir_with_a_fifo_or_a_device_is_one_line(kind, tmp_path):
    results = tmp_path / "results"
    results.mkdir()
    if kind == "fifo":
        os.mkfifo(results / "x.json")
    else:
        (results / "x.json").symlink_to("/dev/zero")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    try:
        done = subprocess.run([sys.executable, "-m", "lexprobe", "report", str(results), "--out", str(tmp_path / "rep")],
                              capture_output=True, text=True, timeout=60, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("report DIR hung on x.json")
    assert done.returncode == 2 and "x.json" in one_line(done.stderr), done.stderr


# --- D21: two first builds of the WordNet groups cache ----------------------------------------------------------

def test_D21_two_writers_of_the_groups_cache_at_once_both_succeed(tmp_path, monkeypatch):
    from lexprobe.benchmarks.wdlmpro import dataset
    from lexprobe.benchmarks.wdlmpro.dataset import load_groups
    from lexprobe.cache import cached_json

    groups = load_groups(wdlmpro_data(tmp_path))
    path = tmp_path / "cache" / "groups.json"
    real_replace, nested = os.replace, []

    def store() -> None:  # a first run's build stored as ``dataset.default_dataset`` stores it
        cached_json(path, dataset.GroupsCache, lambda: groups, inputs="groups", stored=dataset._cache_rows)

    def replace(src, dst, **kw):  # the second run writes the whole cache while the first one renames
        if not nested:
            nested.append(True)
            store()
        return real_replace(src, dst, **kw)

    monkeypatch.setattr(os, "replace", replace)
    store()
    monkeypatch.setattr(os, "replace", real_replace)
    read_back = cached_json(path, dataset.GroupsCache, lambda: pytest.fail("the cache was not read"), inputs="groups",
                            read=lambda data: dataset._groups_from_cache(data, "v"))
    assert nested and [g.target for g in read_back] == [g.target for g in groups]
    assert [p.name for p in path.parent.iterdir()] == ["groups.json"]  # no temporary file left


# --- D23: a GGUF conversion stopped by SIGTERM ----------------------------------------------------------------------

_CONVERT_AND_TERMINATE = """
import os, signal, sys
from pathlib import Path
sys.path.insert(0, {repo!r})
from transformers import PreTrainedModel
from lexprobe.models import gguf as gguf_models

real = PreTrainedModel.save_pretrained
def save_then_terminated(self, folder, *a, **k):
    real(self, folder, *a, **k)  # the weights are on disk, the copy is not finished
    os.kill(os.getpid(), signal.SIGTERM)
PreTrainedModel.save_pretrained = save_then_terminated
gguf_models.as_pretrained_dir({gguf!r})
"""


@pytest.fixture(scope="module")
def tiny_gguf(tiny_llama, tmp_path_factory):
    from tests.gguf_models import write_llama_gguf

    return write_llama_gguf(tiny_llama, tmp_path_factory.mktemp("gguf") / "tiny.gguf", "F32")


def test_D23_sigterm_during_a_gguf_conversion_leaves_no_temporary_copy(tiny_gguf, tmp_path):
    cache = Path(os.environ["LEXPROBE_CACHE"])
    done = subprocess.run([sys.executable, "-c", _CONVERT_AND_TERMINATE.format(repo=str(REPO), gguf=str(tiny_gguf))],
                          capture_output=True, text=True, timeout=300, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert done.returncode in (143, -signal.SIGTERM), done.stderr[-2000:]
    left = [p.name for p in (cache / "gguf").iterdir()] if (cache / "gguf").exists() else []
    assert not [name for name in left if name.endswith(".tmp")], left


def test_D23_a_dead_processes_copy_is_swept_on_the_next_start(tiny_gguf):
    from lexprobe.models import gguf as gguf_models

    folder = gguf_models.cache_folder(tiny_gguf)
    folder.parent.mkdir(parents=True, exist_ok=True)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True).stdout.strip()
    left = folder.with_name(f"{folder.name}.{dead}.tmp")  # a conversion killed with SIGKILL
    left.mkdir()
    (left / "model.safetensors").write_bytes(b"\0" * 1024)
    old = time.time() - 3600
    os.utime(left / "model.safetensors", (old, old))
    os.utime(left, (old, old))
    mine = folder.with_name(f"{folder.name}.{os.getppid()}.tmp")  # a live process's: kept
    mine.mkdir()
    os.utime(mine, (old, old))
    gguf_models.as_pretrained_dir(str(tiny_gguf))
    assert not left.exists() and mine.exists()


def test_D16_a_gguf_model_with_a_read_only_cache_is_converted_without_storing(tiny_gguf, read_only_folder, monkeypatch,
                                                                             capsys):
    from lexprobe.models import gguf as gguf_models

    monkeypatch.setenv("LEXPROBE_CACHE", str(read_only_folder / "cache"))
    folder = Path(gguf_models.as_pretrained_dir(str(tiny_gguf)))
    assert (folder / "source.json").exists() and read_only_folder not in folder.parents
    assert "cache cannot be written" in capsys.readouterr().err


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_D6_the_answer_database_lock_is_never_taken_through_a_link(link, tmp_path):
    from lexprobe.errors import LexprobeError
    from lexprobe.human.store import AnswerStore

    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    lock = tmp_path / "a.sqlite.lock"
    lock.symlink_to(victim) if link == "symlink" else os.link(victim, lock)
    with pytest.raises(LexprobeError, match="link"):
        AnswerStore(tmp_path / "a.sqlite")
    assert victim.read_text() == "precious"


def test_D6_the_embedding_store_never_writes_through_a_link(tmp_path):
    import numpy as np

    from lexprobe.benchmarks.senserank.store import EmbeddingStore
    from lexprobe.errors import LexprobeError

    store = EmbeddingStore(tmp_path / "r.json.embeddings", {"model": "A"})
    store.prepare()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    (store.root / "vectors.r0.f32").symlink_to(victim)
    writer = store.writer(0)
    with pytest.raises(LexprobeError, match="link"):
        writer.append([("a",)], [[0]], [np.ones((1, 3), np.float32)], [np.array([True])])
    writer.close()
    assert victim.read_text() == "precious"
