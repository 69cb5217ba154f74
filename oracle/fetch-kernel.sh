#!/usr/bin/env bash
# fetch-kernel.sh - Debian's Linux 6.12 for the oracle rig, into a cache outside the tree.
#
# Downloads the kernel image package with `apt-get download` (it is never installed on
# this host), takes only the kernel image and the few modules the guest experiments need
# out of it (`dpkg-deb --fsys-tarfile | tar -x PATHS`: the whole package is ~700 MB
# unpacked) and decompresses the modules on the host (busybox insmod loads plain .ko).
# The cache is keyed by the exact package version, which every oracle result records.
#
# Usage: oracle/fetch-kernel.sh [--print-dir] [--help]
# Environment:
#   MSIM_KERNEL_PKG       package name      (default linux-image-6.12.117+deb12-amd64)
#   MSIM_KERNEL_VERSION   package version   (default 6.12.117-1~deb12u1)
#   MSIM_CACHE_DIR        cache root        (default $XDG_CACHE_HOME/memcgsim, else ~/.cache/memcgsim)
#   MSIM_KERNEL_DEB       an already downloaded .deb of exactly that name and version to
#                         seed the cache from (its name is checked; nothing else is trusted)
# Prints the kernel directory (vmlinuz, modules/*.ko, VERSION) on stdout; progress on stderr.
set -euo pipefail

PKG=${MSIM_KERNEL_PKG:-linux-image-6.12.117+deb12-amd64}
VER=${MSIM_KERNEL_VERSION:-6.12.117-1~deb12u1}
KREL=${PKG#linux-image-}
CACHE=${MSIM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/memcgsim}
# The guest's modules: brd (a RAM block device for swap and the ext2 image), ext4 (which
# serves ext2 in Debian's config) and what it needs.
MODULES="drivers/block/brd fs/ext4/ext4 fs/jbd2/jbd2 fs/mbcache lib/crc16 crypto/crc32c_generic"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
case "${1:-}" in
	--help|-h) usage; exit 0 ;;
	--print-dir|"") ;;
	*) echo "fetch-kernel: unknown argument '$1' (try --help)" >&2; exit 2 ;;
esac

dir="$CACHE/$PKG"_"$VER"
complete=yes
for m in $MODULES; do [ -s "$dir/modules/$(basename "$m").ko" ] || complete=""; done
if [ -s "$dir/vmlinuz" ] && [ -s "$dir/VERSION" ] && [ -n "$complete" ]; then
	echo "$dir"
	exit 0
fi
for tool in apt-get dpkg-deb tar xz; do
	command -v "$tool" >/dev/null || { echo "fetch-kernel: '$tool' not found" >&2; exit 3; }
done
mkdir -p "$dir.tmp"
deb="${PKG}_${VER/:/%3a}_amd64.deb"
if [ -n "${MSIM_KERNEL_DEB:-}" ] && [ "$(basename "$MSIM_KERNEL_DEB")" = "$deb" ] &&
   [ -s "$MSIM_KERNEL_DEB" ]; then
	echo "fetch-kernel: seeding the cache from $MSIM_KERNEL_DEB" >&2
	cp "$MSIM_KERNEL_DEB" "$dir.tmp/$deb"
elif [ ! -s "$dir.tmp/$deb" ]; then
	echo "fetch-kernel: apt-get download $PKG=$VER into $dir.tmp" >&2
	if ! (cd "$dir.tmp" && apt-get download -q "$PKG=$VER" >&2) &&
	   ! { [ "$(id -u)" = 0 ] && echo "fetch-kernel: apt-get update, then again" >&2 &&
	       apt-get update -qq >&2 && (cd "$dir.tmp" && apt-get download -q "$PKG=$VER" >&2); }; then
		echo "fetch-kernel: apt-get download $PKG=$VER failed (is Debian's bookworm-security" \
		     "suite in the apt sources, and has apt-get update run?)" >&2
		exit 4
	fi
fi
paths="./boot/vmlinuz-$KREL"
for m in $MODULES; do paths="$paths ./lib/modules/$KREL/kernel/$m.ko.xz"; done
echo "fetch-kernel: unpacking the kernel image and $(echo $MODULES | wc -w) modules" >&2
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile "$dir.tmp/$deb" | tar -x -C "$dir.tmp" $paths
mkdir -p "$dir.tmp/modules"
for m in $MODULES; do
	xz -d -c "$dir.tmp/lib/modules/$KREL/kernel/$m.ko.xz" > "$dir.tmp/modules/$(basename "$m").ko"
done
mv "$dir.tmp/boot/vmlinuz-$KREL" "$dir.tmp/vmlinuz"
printf '%s %s\n' "$PKG" "$VER" > "$dir.tmp/VERSION"
rm -rf "$dir.tmp/boot" "$dir.tmp/lib" "$dir.tmp/$deb"
rm -rf "$dir/vmlinuz" "$dir/modules" "$dir/VERSION"
mkdir -p "$dir"
mv "$dir.tmp"/* "$dir/" && rmdir "$dir.tmp"
echo "$dir"
