"""The doc test's fixtures: one per worker (the zygote, the imported corpora, the shared cache), whichever run file
(``test_run_*.py``) asks first."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.docs.rules import CORPORA, REPO
from tests.docs.runner import DocumentRun, ZYGOTE
from tests.optional import SHARED_DATA


@pytest.fixture(scope="session")
def doc_bin(tmp_path_factory) -> Iterator[Path]:
    """``lexprobe``, ``python`` and ``python3`` as a reader's shell finds them: this checkout, this interpreter;
    ``lexprobe`` and ``python -m lexprobe`` run in a fork of one process that has imported torch once
    (``tests/docs/zygote.py``: a command as from a new process, without 5-8 s of imports each)."""
    folder = tmp_path_factory.mktemp("doc-bin")
    sockets = Path(tempfile.mkdtemp(prefix="lexprobe-zygote-"))  # short: a socket's path has at most 107 bytes
    sock = sockets / "socket"
    env = {**{k: v for k, v in os.environ.items() if not k.startswith("LEXPROBE_") or k == "LEXPROBE_NLTK_DATA"},
           "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false"}
    server = subprocess.Popen([sys.executable, str(ZYGOTE), "--serve", str(sock)], env=env, stdout=subprocess.PIPE,
                              stdin=subprocess.DEVNULL, text=True)
    assert server.stdout is not None and server.stdout.readline().strip() == "ready", "the zygote did not start"
    client = f'"{sys.executable}" -S "{ZYGOTE}" "{sock}"'
    for command, body in (
            ("lexprobe", f'exec {client} "$@"'),
            ("python", f'if [ "$1" = -m ] && [ "$2" = lexprobe ]; then shift 2; exec {client} "$@"; fi\n'
                       f'exec "{sys.executable}" "$@"'),
            ("python3", f'exec "{folder}/python" "$@"')):
        path = folder / command
        path.write_text(f"#!/bin/sh\n{body}\n", encoding="utf-8")
        path.chmod(0o755)
    yield folder
    server.kill()
    server.wait()
    shutil.rmtree(sockets, ignore_errors=True)


@pytest.fixture(scope="session")
def corpora_dir(tmp_path_factory) -> Path | None:
    """A data directory holding the shared folder's corpora, put there by ``lexprobe data import``; None without
    the folder."""
    if not SHARED_DATA.is_dir():
        return None
    root = tmp_path_factory.mktemp("doc-corpora")
    env = {**os.environ, "LEXPROBE_DATA": str(root), "PYTHONPATH": str(REPO)}
    for dataset, rel in CORPORA:
        if (SHARED_DATA / rel).exists():
            subprocess.run([sys.executable, "-m", "lexprobe", "data", "import", dataset, str(SHARED_DATA / rel)],
                           check=True, env=env, capture_output=True, timeout=600)
    return root


@pytest.fixture(scope="session")
def doc_runs() -> dict[str, DocumentRun]:
    """The documents' runs of this session, by document."""
    return {}


@pytest.fixture(scope="session")
def doc_cache(tmp_path_factory) -> Path:
    """One cache for every document's run: WordNet's WDLMPro build and SmolLM2's de-quantised copy are made once
    (the cache is keyed by content, so sharing it changes no result)."""
    return tmp_path_factory.mktemp("doc-cache")


@pytest.fixture(scope="session")
def tiny_llama_gguf(tmp_path_factory) -> Path:
    """The tiny Llama as a float32 GGUF file: ``llamacpp:`` commands' stand-in for SmolLM2's Q4 file."""
    from tests.gguf_models import write_llama_gguf
    from tests.tiny_models import build_tiny_llama

    root = tmp_path_factory.mktemp("doc-tiny-gguf")
    return write_llama_gguf(build_tiny_llama(root / "hf"), root / "tiny.gguf")
