"""Fixtures of the endpoint tests: a tiny Llama in process, a fake OpenAI-compatible server backed by it,
a small WDLMPro file, and quick retries."""

from __future__ import annotations

import pytest

from lexprobe.models import load_scorer
from tests.backends.fake_openai import FakeOpenAI


@pytest.fixture(scope="module")
def llama(tiny_llama):
    return load_scorer(str(tiny_llama), device="cpu", batch_size=4)


@pytest.fixture()
def fake(llama, tiny_llama):
    with FakeOpenAI(llama, name=str(tiny_llama)) as server:
        yield server


@pytest.fixture()
def wdlmpro_data(tmp_path):
    from lexprobe.benchmarks.wdlmpro.dataset import write_jsonl
    from tests.benchmarks.wdlmpro.test_scoring import GROUPS

    return str(write_jsonl(GROUPS, tmp_path / "groups.jsonl"))


@pytest.fixture()
def quick_retries(monkeypatch):
    """Two retries, a millisecond apart (the defaults wait seconds)."""
    import lexprobe.backends.client as client

    monkeypatch.setattr(client, "RETRIES", 2)
    monkeypatch.setattr(client, "BACKOFF", 0.001)


@pytest.fixture(autouse=True)
def _no_secrets_left():
    """Secrets a test registered do not outlive it (``redaction`` keeps them for the process)."""
    from lexprobe.redaction import forget_secrets

    yield
    forget_secrets()
