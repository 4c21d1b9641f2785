#!/usr/bin/env bash
# Installs what kafka-ts needs on a fresh Debian/Ubuntu machine with Node 20+: the npm packages (from
# package-lock.json), the cluster page's bundle (npm run build:ui) and the Debian packages (ZooKeeper on Java; kcat,
# python3-kafka and python3-confluent-kafka for interop tests; chromium for the cluster page's browser test; libssl-dev
# for the TLS build of the ZooKeeper binding, scripts/build-zookeeper-tls.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

node_major=$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
if [ "$node_major" -lt 20 ]; then
  echo "kafka-ts needs Node.js 20 or newer (found: $(node --version 2>/dev/null || echo none))" >&2
  exit 1
fi

if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi

# bin/kafka-ui.ts serves this bundle (it builds it too when missing, but a set-up machine has it ready).
npm run --silent build:ui

# With no package names, the ones the broker and the tests need.
# libssl-dev: OpenSSL's headers, for the TLS build of the ZooKeeper binding below.
if [ "$#" -eq 0 ]; then set -- zookeeper kcat python3-kafka python3-confluent-kafka chromium libssl-dev; fi
bash scripts/ensure-system-packages.sh "$@"

# ZooKeeper over TLS (zookeeper.ssl.client.enable) needs a TLS build of the zookeeper binding, made beside
# node_modules (in .kafka-ts/zookeeper-tls) and only when missing or stale; without it all else works as before.
bash scripts/build-zookeeper-tls.sh --if-possible
