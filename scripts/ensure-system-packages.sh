#!/bin/sh
# Usage: scripts/ensure-system-packages.sh PACKAGE...
# Makes sure the named Debian packages are installed. Quick when they all are (dpkg-query only, no apt-get).
# Missing ones are installed when running as root on a machine with apt-get; otherwise this prints the command
# to run and exits 1. It never skips silently: a caller can rely on the packages being there when it exits 0.
set -eu

if [ "$#" -eq 0 ]; then
  echo "usage: $0 PACKAGE... (Debian package names, e.g. zookeeper kcat)" >&2
  exit 1
fi

# dpkg's status is "<want> ok installed" ("install", or "hold" for a held package) once a package is usable.
# Without dpkg-query (not Debian-like) every package counts as missing, so the message below says what is needed.
is_installed() {
  case "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" in
    *" ok installed") return 0 ;;
    *) return 1 ;;
  esac
}

missing=""
for pkg in "$@"; do
  case "$pkg" in
    -* | *[!a-z0-9+.-]*) echo "ensure-system-packages: '$pkg' is not a Debian package name" >&2; exit 1 ;;
  esac
  is_installed "$pkg" || missing="$missing $pkg"
done
[ -z "$missing" ] && exit 0
missing=${missing# }

if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "kafka-ts needs Debian packages $missing: run 'sudo apt-get install -y $missing'" >&2
  exit 1
fi

echo "ensure-system-packages: installing $missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine (or container image) has empty package lists, so update first.
if ! apt-get update -q >&2; then
  echo "ensure-system-packages: 'apt-get update' failed (see above), so $missing could not be installed" >&2
  exit 1
fi
# shellcheck disable=SC2086 # word splitting of the validated package list is intended
if ! apt-get install -y -q --no-install-recommends $missing >&2; then
  echo "ensure-system-packages: 'apt-get install -y $missing' failed (see above)" >&2
  exit 1
fi

for pkg in $missing; do
  if ! is_installed "$pkg"; then
    echo "ensure-system-packages: $pkg is still not installed after apt-get install" >&2
    exit 1
  fi
done
