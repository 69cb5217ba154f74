#!/usr/bin/env bash
# build-initramfs.sh - the oracle guest's initramfs: busybox, /init (guest/init.sh), the
# experiment programs compiled static from guest/*.c (guest/NAME.c -> /bin/exp-NAME) and
# the kernel modules fetch-kernel.sh unpacked. Written with `busybox cpio -o -H newc`
# (a new machine has no cpio binary) and cached by a hash of its inputs.
#
# Usage: oracle/build-initramfs.sh KERNEL_DIR [--help]
# Prints the path of the initramfs on stdout; progress on stderr.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
	--help|-h|"") sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; [ -n "${1:-}" ]; exit $? ;;
esac
kdir=$1
BUSYBOX=${MSIM_BUSYBOX:-$(command -v busybox || true)}
CC=${MSIM_GUEST_CC:-gcc}
[ -x "$BUSYBOX" ] || { echo "build-initramfs: busybox not found (install busybox-static)" >&2; exit 3; }
readelf -l "$BUSYBOX" 2>/dev/null | grep -q 'program interpreter' &&
	{ echo "build-initramfs: $BUSYBOX is dynamically linked (install busybox-static)" >&2; exit 3; }
[ -d "$kdir/modules" ] || { echo "build-initramfs: no modules in $kdir" >&2; exit 3; }
hash=$(cat "$here"/guest/*.c "$here"/guest/*.h "$here"/guest/init.sh "$BUSYBOX" "$kdir/VERSION" \
       "$0" | sha256sum | cut -c1-16)
out="$kdir/initramfs-$hash.cpio"
if [ -s "$out" ]; then echo "$out"; exit 0; fi
stage=$(mktemp -d)
trap 'rm -rf "$stage"; [ -z "${tmp:-}" ] || rm -f "$tmp"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,mnt,tmp,lib/modules}
cp "$BUSYBOX" "$stage/bin/busybox"
for app in sh mount umount mkdir sed grep cat echo poweroff insmod sleep ls mke2fs mkswap \
           swapon dd rmdir; do
	ln -s busybox "$stage/bin/$app"
done
install -m 755 "$here/guest/init.sh" "$stage/init"
cp "$kdir"/modules/*.ko "$stage/lib/modules/"
for src in "$here"/guest/*.c; do
	name=$(basename "$src" .c)
	echo "build-initramfs: $CC -static $name.c" >&2
	"$CC" -O2 -static -Wall -Wextra -Werror -o "$stage/bin/exp-$name" "$src"
done
# Written under a name of its own and renamed: runs from several trees share the cache.
tmp=$(mktemp "$out.XXXXXX")
(cd "$stage" && find . | "$BUSYBOX" cpio -o -H newc 2>/dev/null) > "$tmp"
mv -f "$tmp" "$out"
# older builds, once no run can still be booting them (another tree's is current there)
find "$kdir" -maxdepth 1 -name 'initramfs-*.cpio' ! -path "$out" -mmin +1440 -delete
echo "$out"
