#!/usr/bin/env bash
# Installs what building and testing libmemcgsim needs on Debian 12, only when it is
# missing, and says what it installs. Idempotent; needs root (or sudo) to install.
#   libjansson-dev  JSON writing and reading (races, benches, `memcgsim report`, traces)
#   gnuplot-nox     the plots of `memcgsim report` (SVG and PNG); the report works
#                   without it and says so
#   chromium        (when CI=true, or on request with MSIM_INSTALL_CHROMIUM=1) the
#                   browser the report's screenshot test opens index.html in; the
#                   test skips without it, except under CI=true, where it fails
#   qemu-system-x86, busybox-static, xz-utils
#                   the kernel rig (`memcgsim oracle`, ctest label kernel): QEMU boots
#                   Debian's Linux 6.12 (fetched by oracle/fetch-kernel.sh with apt-get
#                   download, never installed) with a busybox initramfs
# Opt-in: MSIM_INSTALL_FUZZ=1 (`make fuzz`, CI) also installs clang-14 and
# libclang-rt-14-dev, the compiler and libFuzzer runtime of the fuzz preset.
set -euo pipefail
need=()
have_pkg() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
pkgs=(cmake ninja-build pkg-config gcc libc6-dev make libcmocka-dev liburcu-dev libck-dev
      libjansson-dev gnuplot-nox qemu-system-x86 busybox-static xz-utils)
if [ "${MSIM_INSTALL_CHROMIUM:-0}" = 1 ] || [ "${CI:-}" = true ]; then pkgs+=(chromium); fi
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
