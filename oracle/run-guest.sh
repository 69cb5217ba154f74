#!/usr/bin/env bash
# run-guest.sh - boot Debian's 6.12 under QEMU (TCG: software emulation) with the oracle
# initramfs, run one guest experiment and print its result lines (the JSON after
# "@@ORACLE "), one per line, on stdout.
#
# Usage: oracle/run-guest.sh EXPERIMENT [--cpus N] [--mem MiB] [--timeout S]
#                            [--arg NAME=VALUE]... [--help]
# Every boot runs under a hard time limit. A guest that hangs, panics or ends without its
# end mark is an error: exit status 1 and the console's last 40 lines on stderr. The whole
# console is kept in the cache (console-EXPERIMENT-cpusN.log, the last boot to finish; each
# boot writes its own file first, so that runs from several trees at once, which share the
# cache, never read each other's console).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
[ $# -ge 1 ] || { usage >&2; exit 2; }
case "$1" in --help|-h) usage; exit 0 ;; -*) echo "run-guest: no experiment" >&2; exit 2 ;; esac
exp=$1; shift
cpus=2; mem=512; limit=240; extra=""
while [ $# -gt 0 ]; do
	case "$1" in
	--cpus) cpus=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--timeout) limit=$2; shift 2 ;;
	--arg) extra="$extra oracle.$2"; shift 2 ;;
	--help|-h) usage; exit 0 ;;
	*) echo "run-guest: unknown argument '$1' (try --help)" >&2; exit 2 ;;
	esac
done
case "$cpus$mem$limit" in *[!0-9]*) echo "run-guest: --cpus, --mem, --timeout take numbers" >&2; exit 2 ;; esac
QEMU=${MSIM_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null || { echo "run-guest: $QEMU not found (install qemu-system-x86)" >&2; exit 3; }
kdir=$("$here/fetch-kernel.sh")
initrd=$("$here/build-initramfs.sh" "$kdir")
kept="$kdir/console-$exp-cpus$cpus.log"
log=$(mktemp "$kdir/console-$exp-cpus$cpus.XXXXXX")
trap 'rm -f "$log"' EXIT
echo "run-guest: booting $(cat "$kdir/VERSION") with $cpus vCPUs for '$exp' (limit ${limit}s)" >&2
# no_timer_check: under emulation on a loaded host the IO-APIC timer check can fail
# and panic the boot ("IO-APIC + timer doesn't work").
boot() {
	rc=0
	timeout -k 5 "$limit" "$QEMU" -accel tcg,thread=multi -cpu max -M q35 -smp "$cpus" -m "$mem" \
		-nodefaults -no-user-config -nographic -no-reboot -serial stdio -display none \
		-kernel "$kdir/vmlinuz" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=3 no_timer_check slub_nomerge oracle.exp=$exp$extra" \
		</dev/null >"$log" 2>&1 || rc=$?
	tr -d '\r' < "$log" > "$log.txt" && mv "$log.txt" "$log"
}
boot
# A boot that never reached /init (a panic or hang before the experiment began) is
# the emulator's, not the experiment's: boot once more, and say so.
if ! grep -q '@@ORACLE-BEGIN' "$log"; then
	echo "run-guest: the guest did not reach /init (status $rc); booting once more:" >&2
	grep -m1 -i 'panic\|not syncing' "$log" >&2 || tail -n 3 "$log" >&2
	boot
fi
end=$(sed -n 's/^@@ORACLE-END \([0-9]*\).*/\1/p' "$log" | tail -1)
fail=""
if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then fail="the guest did not finish within ${limit}s"
elif [ -z "$end" ]; then fail="the guest ended (qemu status $rc) without its end mark"
elif [ "$end" != 0 ]; then fail="the guest experiment exited with status $end"
elif grep -q '^@@ORACLE {"error"' "$log"; then fail="the guest experiment reported an error"
fi
sed -n 's/^@@ORACLE \({.*}\)$/\1/p' "$log"
cp "$log" "$kept.$$" && mv -f "$kept.$$" "$kept"
if [ -n "$fail" ]; then
	{ echo "run-guest: $exp: $fail; the console's last lines ($kept):"; tail -n 40 "$log"; } >&2
	exit 1
fi
