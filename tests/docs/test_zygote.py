"""A command run in a fork of the zygote (``zygote.py``) exits and prints as the same command in a new process."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.docs.rules import DOCS_RUN, REPO

COMMANDS = (
    ["models"],  # prints a table, exit 0
    ["wdlmpro", "eval", "--model", "no-such-model-xyz", "--out", "r.json"],  # bad input: one line, exit 2
    ["compare", "missing-a.json", "missing-b.json"],  # a declared input that is not there, exit 2
)


@pytest.mark.slow
@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(a[:2]) for a in COMMANDS])
def test_a_forked_command_is_the_command_in_a_new_process(argv, request, tmp_path):
    if DOCS_RUN not in ("quick", "real"):
        pytest.skip("the zygote serves the documents' commands, run with LEXPROBE_TEST_DOCS=quick or =real")
    doc_bin = request.getfixturevalue("doc_bin")
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "COLUMNS": "100",
           "LEXPROBE_DATA": str(tmp_path / "data"), "LEXPROBE_CACHE": str(tmp_path / "cache")}
    forked = subprocess.run([str(doc_bin / "lexprobe"), *argv], cwd=tmp_path, env=env, capture_output=True,
                            text=True, timeout=300)
    fresh = subprocess.run([sys.executable, "-m", "lexprobe", *argv], cwd=tmp_path, env=env, capture_output=True,
                           text=True, timeout=300)
    assert (forked.returncode, forked.stdout, forked.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert fresh.returncode == (0 if argv == ["models"] else 2)
    assert not (tmp_path / "r.json").exists()
