"""The backend registry: ``load_scorer`` is a lookup, the kinds come from it, and adding a backend is one
module + one ``register_backend`` line. A stand-in backend (``standin:PATH``), whose scorer offers the
capabilities of a causal LM through its methods only (no ``.model``, not a ``CausalLMScorer``), runs every
benchmark method it offers with the same numbers as the in-process scorer, and is refused in one line by
the ones it does not."""

from __future__ import annotations

import json

import pytest

from lexprobe.backends import Backend, backend_for, kinds, register_backend, unregister_backend
from lexprobe.core.registry import all_benchmarks
from lexprobe.cli import main
from lexprobe.asking.engine import serves
from lexprobe.models import KINDS
from lexprobe.models import load_scorer
from lexprobe.scorers.base import Scorer
from tests.benchmarks.coda21.helpers import write_small
from tests.benchmarks.wdlmpro.test_scoring import GROUPS


class StandIn(Scorer):
    """A causal LM seen only through the model contract (``scorers.capabilities``, the request types it
    serves: ``asking.requests``)."""

    def __init__(self, inner):
        super().__init__(f"standin:{inner.name}")
        self.kind = "causal"
        self._inner = inner
        self.tokenizer, self.max_length, self.batch_size = inner.tokenizer, inner.max_length, inner.batch_size
        self.calls: dict[str, int] = {}

    def _note(self, what: str) -> None:
        self.calls[what] = self.calls.get(what, 0) + 1

    def tokenize_pair(self, context, continuation):
        return self._inner.tokenize_pair(context, continuation)

    def split(self, context, continuation):
        return self._inner.split(context, continuation)

    def token_logprobs(self, requests, progress=False):
        self._note("token_logprobs")
        return self._inner.token_logprobs(requests, progress)

    def continuation_logprobs(self, requests, progress=False):
        self._note("continuation_logprobs")
        return self._inner.continuation_logprobs(requests, progress)

    # the request layer's names (lexprobe.asking.requests)
    def fit_continuations(self, requests):
        return self._inner.fit_continuations(requests)

    def continuations(self, requests, progress=False):
        self._note("continuations")
        return self._inner.continuations(requests, progress)

    def fit_generations(self, requests):
        return self._inner.fit_generations(requests)

    def generations(self, requests, progress=False):
        self._note("generations")
        return self._inner.generations(requests, progress)


MADE: list[StandIn] = []


def load_standin(reference: str, kind=None, **options) -> StandIn:
    scorer = StandIn(load_scorer(reference[len("standin:"):], kind="causal", device="cpu"))
    MADE.append(scorer)
    return scorer


@pytest.fixture()
def standin():
    register_backend(Backend("standin", load_standin,
                             lambda m: m.startswith("standin:"), ("causal",), offers="a test stand-in", order=5))
    yield
    unregister_backend("standin")
    MADE.clear()


def test_load_scorer_is_a_lookup_and_the_kinds_come_from_the_registry(standin, tiny_llama):
    assert backend_for("http://127.0.0.1:1/v1").name == "openai" and backend_for("vllm:/x").name == "vllm"
    assert backend_for(str(tiny_llama)).name == "transformers" and backend_for("standin:x").name == "standin"
    assert set(KINDS) == set(kinds()) and {"masked", "causal", "chat", "random"} <= set(KINDS)
    assert isinstance(load_scorer(f"standin:{tiny_llama}"), StandIn)


def test_the_vllm_backend_without_vllm_is_one_line(tmp_path, capsys):
    try:
        import vllm  # noqa: F401
        pytest.skip("vllm is importable here")
    except ImportError:
        pass
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl

    data = str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))
    assert main(["wdlmpro", "eval", "--data", data, "--model", "vllm:/nowhere", "--out", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert "needs vLLM" in err and "setup_vllm.sh" in err and len(err.splitlines()) == 1


def offered(backend, method) -> bool:
    """Does ``backend`` offer what ``method`` needs: every request type of one of its alternatives?"""
    return any(all(serves(backend, kind) for kind in option) for option in method.requests)


def test_a_standin_backend_runs_every_method_it_offers(standin, tiny_llama, tmp_path, capsys, monkeypatch, request):
    import lexprobe.benchmarks.coda21.ask as asking
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.benchmarks.coda21.test_coda21_ask_method import TINY_ANSWERS

    # the tiny Llama spells " Yes" and " No" with one first token: --method ask refuses it (#26 D10)
    monkeypatch.setattr(asking, "ANSWERS", TINY_ANSWERS)
    from lexprobe.data.semcor import sample_archive
    from tests.data.test_wsd import write_pair

    data = {"wdlmpro": ["--data", str(write_jsonl(GROUPS, tmp_path / "g.jsonl"))],
            "coda21": ["--data", str(write_small(tmp_path / "coda.json")), "--pos", "v"],
            "senserank": ["--corpus", "semcor", "--path", str(sample_archive()), "--max-instances", "20"],
            "wsd": ["--data", str(write_pair(tmp_path / "wsd", name="mini"))]}
    from tests.optional import SHARED_DATA

    if (SHARED_DATA / "mcl-wic").is_dir():  # MCL-WiC's own pairs (a threshold is fitted on its training set)
        request.getfixturevalue("imported_data")
        data["wic"] = ["--data", "mcl-wic:en-en", "--limit", "6", "--fit-limit", "10"]
    extra = {"choose": ["--max-candidates", "3", "--max-new-tokens", "4"]}
    ran, refused = [], []
    probe = load_standin(f"standin:{tiny_llama}")
    for bench in (b for b in all_benchmarks() if b.meta.name in data):
        for name, method in bench.methods.items():
            args = [bench.meta.name, "eval", "--method", name, *extra.get(name, [])]
            if not offered(probe, method):
                assert main(args + data[bench.meta.name] + ["--model", f"standin:{tiny_llama}",
                                                            "--out", str(tmp_path / "no.json")]) == 2
                err = capsys.readouterr().err.strip().splitlines()[-1]
                assert "needs" in err and "standin" in err, err
                refused.append((bench.meta.name, name))
                continue
            args += data[bench.meta.name]
            a, b = tmp_path / "standin.json", tmp_path / "here.json"
            assert main(args + ["--model", f"standin:{tiny_llama}", "--out", str(a)]) == 0
            assert main(args + ["--model", str(tiny_llama), "--device", "cpu", "--out", str(b)]) == 0
            assert json.loads(a.read_text())["metrics"] == json.loads(b.read_text())["metrics"], (bench.meta.name, name)
            assert MADE[-1].calls  # the numbers came through the stand-in's capabilities
            ran.append((bench.meta.name, name))
            a.unlink(), b.unlink()
    assert {("wdlmpro", "likelihood"), ("wdlmpro", "choose"), ("coda21", "likelihood"), ("coda21", "choose"),
            ("coda21", "ask"), ("wsd", "likelihood"), ("wsd", "choose")} | ({("wic", "ask")} if "wic" in data else
                                                                               set()) <= set(ran)
    assert ("wsd", "embedding") in refused
    assert ("senserank", "similarity") in refused
