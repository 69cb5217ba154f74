#!/usr/bin/env bash
# Installs what building and testing libmemcgsim needs on Debian 12, only when it is
# missing, and says what it installs. Idempotent; needs root (or sudo) to install.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
for p in cmake ninja-build pkg-config gcc libc6-dev make libcmocka-dev liburcu-dev libck-dev libjansson-dev; do
  have_pkg "$p" || need+=("$p")
done
if [ ${#need[@]} -eq 0 ]; then
  exit 0
fi
echo "install-deps: installing missing packages: ${need[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >&2
$SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >&2
