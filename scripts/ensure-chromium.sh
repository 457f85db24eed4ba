#!/usr/bin/env bash
# The console's browser tests drive Debian's Chromium (/usr/bin/chromium) through playwright-core;
# nothing downloads a browser. Install it from Debian's packages when it is missing; do nothing when
# it is there.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The console's browser tests need Debian's Chromium. Install it with: apt-get install -y chromium" >&2
  exit 1
fi
echo "Installing Chromium for the console's browser tests (chromium)..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
/usr/bin/chromium --version
