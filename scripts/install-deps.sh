#!/usr/bin/env bash
# Installs what building and testing libmemcgsim needs on Debian 12, only when it is
# missing, and says what it installs. Idempotent; needs root (or sudo) to install.
#   libjansson-dev  JSON writing and reading (races, benches, `memcgsim report`, traces)
#   gnuplot-nox     the plots of `memcgsim report` (SVG and PNG); the report works
#                   without it and says so
# Opt-in: MSIM_INSTALL_FUZZ=1 (`make fuzz`, CI) also installs clang-14 and
# libclang-rt-14-dev, the compiler and libFuzzer runtime of the fuzz preset.
# Opt-in: MSIM_INSTALL_CHROMIUM=1 also installs chromium, which the report's
# screenshot test uses when /usr/bin/chromium exists (it says it skipped otherwise).
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
pkgs=(cmake ninja-build pkg-config gcc libc6-dev make libcmocka-dev liburcu-dev libck-dev
      libjansson-dev gnuplot-nox)
if [ "${MSIM_INSTALL_CHROMIUM:-0}" = 1 ]; then pkgs+=(chromium); fi
if [ "${MSIM_INSTALL_FUZZ:-0}" = 1 ]; then pkgs+=(clang-14 libclang-rt-14-dev); fi
for p in "${pkgs[@]}"; do
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
