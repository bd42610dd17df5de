#!/usr/bin/env bash
# Set up a fresh Debian/Ubuntu machine for lexprobe: WordNet 3.0, pinned Python packages, lexprobe itself.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f /usr/share/wordnet/data.noun ]; then
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
python3 -m pip install -q --disable-pip-version-check --no-deps -e .
