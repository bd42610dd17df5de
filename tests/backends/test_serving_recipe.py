"""docs/backends.md's CPU serving recipe works exactly as written (#34 item 1): the `recipe: cpu` block is taken
from the document itself and run by bash, start to end: the real vLLM server from the venv of
``scripts/setup_vllm.sh`` on the SmolLM2 float32 folder, ``lexprobe check-endpoint`` (must agree: exit 0) and a
WDLMPro eval through the server, then the server stopped by the block's own ``kill``. Only the port is changed
(a free one) and, where ``LEXPROBE_VLLM_VENV`` / ``LEXPROBE_VLLM_MODEL`` move them, the two folders; ``lexprobe``
is this checkout's (a shim on PATH). Skipped where the vLLM venv is missing, as the other real-server tests."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.backends.vllm_server import MODEL_DIR, REPO, VENV, free_port, missing, model_folder

pytestmark = pytest.mark.skipif(missing() is not None, reason=missing() or "")

DOC = REPO / "docs" / "backends.md"
MARKER = "<!-- recipe: cpu -->"


def recipe() -> str:
    """The bash block right after the marker, as the document has it."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(re.escape(MARKER) + r"\s*```bash\n(.*?)```", text, re.S)
    assert match, f"{DOC} has no ```bash block after {MARKER}"
    return match.group(1)


def test_the_recipe_block_is_the_documented_commands():
    block = recipe()
    assert "-m vllm.entrypoints.openai.api_server" in block and "vllm serve" not in block
    assert "--dtype float32" in block and "--enforce-eager" in block and "VLLM_CPU_KVCACHE_SPACE=" in block
    assert "lexprobe check-endpoint" in block and "kill $SERVER" in block
    # the server's log goes to a file, not between lexprobe's lines (its lines run to 3,439 columns)
    assert "> vllm.log 2>&1 &" in block and "tail -n 20 vllm.log" in block


def test_the_cpu_recipe_runs_as_written(tmp_path):
    model_folder()  # the folder setup_vllm.sh writes (made here from the GGUF where it is missing)
    port = str(free_port())
    script = recipe().replace("8011", port)
    script = script.replace("~/.cache/lexprobe-vllm/venv", str(VENV))
    script = script.replace("~/.cache/lexprobe-vllm/smollm2-135m-instruct", str(MODEL_DIR))
    (tmp_path / "recipe.sh").write_text(script)
    shim = tmp_path / "bin" / "lexprobe"
    shim.parent.mkdir()
    shim.write_text(f"#!/bin/sh\nexec {sys.executable} -m lexprobe \"$@\"\n")
    shim.chmod(0o755)
    env = {**os.environ, "PATH": f"{shim.parent}{os.pathsep}{os.environ.get('PATH', '')}", "PYTHONPATH": str(REPO),
           "HF_HUB_OFFLINE": "1", "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    env.pop("LEXPROBE_API_KEY", None)
    proc = subprocess.Popen(["bash", "-eu", "-o", "pipefail", "recipe.sh"], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=1500)
    finally:
        try:  # the block kills its server; whatever is left of the group goes too
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert proc.returncode == 0, out[-4000:]
    assert "agree: every |Δ|" in out, out[-4000:]
    result = json.loads((tmp_path / "served.json").read_text())
    assert result["run"]["backend"]["server"].startswith("vllm") and result["metrics"]["w2d"]["all"]["n"] == 4
    assert Path(result["run"]["backend"]["endpoint"]).name == "v1"
