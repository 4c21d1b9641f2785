#!/usr/bin/env bash
# Builds the TLS copy of the npm `zookeeper` binding into .kafka-ts/zookeeper-tls/, for ZooKeeper over TLS
# (zookeeper.ssl.client.enable=true; docs/security-zookeeper.md). node_modules/zookeeper itself is never touched:
# the copy gets scripts/zookeeper-tls/zookeeper-<version>.patch (the binding calls zookeeper_init_ssl and passes
# Kafka's host name verification, protocol versions and cipher suites to the C client, which checks the host,
# reads every response OpenSSL has decrypted and bounds its blocking handshake) and is built against OpenSSL
# (Debian's libssl-dev). Without this build everything but ZooKeeper over TLS runs as before.
#
# Usage: scripts/build-zookeeper-tls.sh [--if-possible]
#   --if-possible: exit 0 with a warning when it cannot be built (no libssl-dev, no compiler, another version
#   of the binding), as scripts/setup.sh calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

soft=false
[ "${1:-}" = "--if-possible" ] && soft=true
fail() {
  echo "build-zookeeper-tls: $1" >&2
  if $soft; then echo "build-zookeeper-tls: ZooKeeper over TLS stays unavailable; everything else is unaffected" >&2; exit 0; fi
  exit 1
}

src=node_modules/zookeeper
dest=.kafka-ts/zookeeper-tls
[ -f "$src/package.json" ] || fail "$src is missing: run npm ci first"
version=$(node -p "require('./$src/package.json').version")
patch_file=scripts/zookeeper-tls/zookeeper-$version.patch
[ -f "$patch_file" ] || fail "no TLS patch for zookeeper $version (only for: $(cd scripts/zookeeper-tls && ls | sed 's/^zookeeper-//; s/\.patch$//' | tr '\n' ' '))"
[ -f /usr/include/openssl/ssl.h ] || fail "OpenSSL's headers are missing: run 'sudo apt-get install -y libssl-dev'"
command -v make >/dev/null && command -v g++ >/dev/null || fail "make and g++ are needed (Debian: build-essential)"

# Up to date when built from this version with this patch, by this script, for this Node ABI: a checkout whose
# patch changed rebuilds on its next run (scripts/setup.sh, so npm test too); until then src/zk/zk-client.ts
# refuses the stale build, which lacks what the new patch adds (its kafka_ts_tls_patch level is older).
stamp="$version $(cat "$patch_file" scripts/build-zookeeper-tls.sh | sha256sum | cut -d' ' -f1) $(node -p process.versions.modules)"
if [ -f "$dest/build/Release/zookeeper.node" ] && [ "$(cat "$dest/.kafka-ts-stamp" 2>/dev/null)" = "$stamp" ]; then
  exit 0
fi

echo "build-zookeeper-tls: building the zookeeper $version binding with TLS into $dest (a few minutes)" >&2
rm -rf "$dest"
mkdir -p "$dest"
# The package without its build products; the C client's sources come fresh from the package's tarball.
tar -C "$src" --exclude=./build --exclude=./deps/zookeeper-client-c --exclude=./prebuilds -cf - . | tar -C "$dest" -xf -
tar -C "$dest/deps" -xzf "$dest/deps/zookeeper-client-c.tar.gz" 2>/dev/null
patch -d "$dest" -p1 --quiet < "$patch_file" || fail "$patch_file does not apply to zookeeper $version"

# node-gyp from npm; the headers of the running Node (Debian's nodejs keeps them under /usr/include/node).
gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
[ -f "$gyp" ] || fail "npm's node-gyp is missing ($gyp)"
nodedir_arg=()
[ -f /usr/include/node/node.h ] && nodedir_arg=(--nodedir=/usr)
log="$dest/build.log"
if ! (cd "$dest" && node "$gyp" rebuild "${nodedir_arg[@]}") > "$log" 2>&1; then
  tail -20 "$log" >&2
  fail "node-gyp rebuild failed (log: $log)"
fi
# The C client's configure finds OpenSSL by itself; without it the build would be a plaintext one.
grep -q 'HAVE_OPENSSL_H' "$dest/deps/zookeeper-client-c/Makefile" || fail "the ZooKeeper C client was configured without OpenSSL (log: $log)"
echo "$stamp" > "$dest/.kafka-ts-stamp"
echo "build-zookeeper-tls: done ($dest/build/Release/zookeeper.node)" >&2
