"""A real vLLM OpenAI-compatible server for tests, started from its own venv (``scripts/setup_vllm.sh``).

SmolLM2-135M-Instruct from the PyPI GGUF, de-quantised to float32 safetensors as lexprobe loads it
(``scripts/vllm_model.py``), served on 127.0.0.1 (with ``--api-key`` when given) with ``--enforce-eager`` (~70 s to start on a CPU,
~5 GB of memory with ``VLLM_CPU_KVCACHE_SPACE=2``). The server runs in its own process group and is
stopped by that group's id (vLLM's engine is a child process), never by name.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
VENV = Path(os.environ.get("LEXPROBE_VLLM_VENV", str(Path.home() / ".cache" / "lexprobe-vllm" / "venv")))
MODEL_DIR = Path(os.environ.get("LEXPROBE_VLLM_MODEL", Path.home() / ".cache" / "lexprobe-vllm" / "smollm2-135m-instruct"))
START_TIMEOUT = float(os.environ.get("LEXPROBE_VLLM_START_TIMEOUT", "600"))


def missing() -> str | None:
    """Why the real-server tests cannot run here, or None."""
    python = VENV / "bin" / "python"
    if not python.is_file():
        return f"no vLLM venv at {VENV}: run `bash scripts/setup_vllm.sh` (or set LEXPROBE_VLLM_VENV)"
    if not list(VENV.glob("lib/python*/site-packages/vllm/__init__.py")):
        return f"vLLM is not installed in {VENV}: run `bash scripts/setup_vllm.sh`"
    return None


def model_folder() -> Path:
    sys.path.insert(0, str(REPO / "scripts"))
    try:
        from vllm_model import served_folder
    finally:
        sys.path.pop(0)
    MODEL_DIR.parent.mkdir(parents=True, exist_ok=True)
    return served_folder("smollm2-135m-instruct", MODEL_DIR)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class VLLMServer:
    def __init__(self, model: Path, log: Path, port: int | None = None, api_key: str | None = None):
        self.model, self.log, self.port = model, log, port or free_port()
        self.api_key = api_key  # vLLM's --api-key: every /v1 request must carry it
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> "VLLMServer":
        env = {**os.environ, "VLLM_CPU_KVCACHE_SPACE": "2", "HF_HUB_OFFLINE": "1", "PYTHONPATH": "",
               "OMP_NUM_THREADS": os.environ.get("LEXPROBE_VLLM_THREADS", "2")}
        env.pop("LEXPROBE_API_KEY", None)
        env.pop("OPENAI_API_KEY", None)
        cmd = [str(VENV / "bin" / "python"), "-m", "vllm.entrypoints.openai.api_server", "--model", str(self.model),
               "--dtype", "float32", "--enforce-eager", "--host", "127.0.0.1", "--port", str(self.port),
               "--max-model-len", "2048"] + (["--api-key", self.api_key] if self.api_key else [])
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        deadline = time.time() + START_TIMEOUT
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"vLLM exited ({self.proc.returncode}) while starting; see {self.log}:\n"
                                   + self.log.read_text(errors="replace")[-3000:])
            try:
                headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
                with urllib.request.urlopen(urllib.request.Request(f"{self.url}/models", headers=headers),
                                            timeout=5) as r:
                    if json.load(r).get("data"):
                        return self
            except OSError:
                pass
            time.sleep(2)
        self.stop()
        raise RuntimeError(f"vLLM did not answer within {START_TIMEOUT:.0f} s; see {self.log}")

    def stop(self) -> None:
        """Stop the server's process group (the API server and its engine) by its id."""
        if self.proc is None or self.proc.poll() is not None:
            return
        pgid = self.proc.pid  # start_new_session: the group id is the server's pid
        os.killpg(pgid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(pgid, signal.SIGKILL)
            self.proc.wait(timeout=30)
