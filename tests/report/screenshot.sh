#!/usr/bin/env bash
# tests/report/screenshot.sh BUILD_DIR: the ctest test report/screenshot.
#
# Writes `memcgsim report --quick --thread 4` (thread 004: verdict tables, race
# tables and plots), opens its index.html in headless Chromium and takes a
# screenshot, then checks the PNG is a page with content: its size from the
# header, and pixel data that is not the long zero runs of a blank page (the
# screenshot is kept as BUILD_DIR/report-screenshot.png to look at). Skips (exit 77) where /usr/bin/chromium
# is not installed: `MSIM_INSTALL_CHROMIUM=1 scripts/install-deps.sh` installs it.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
CHROMIUM=${MSIM_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  echo "report/screenshot: skipped: $CHROMIUM is not installed" \
       "(MSIM_INSTALL_CHROMIUM=1 scripts/install-deps.sh installs it)"
  exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/msim-shot.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
"$BUILD/memcgsim" report --quick --thread 4 --out "$TMP/report" 2>"$TMP/report.log" || {
  cat "$TMP/report.log" >&2; echo "report/screenshot: FAIL: memcgsim report" >&2; exit 1; }
grep -q '<img src="plots/' "$TMP/report/index.html" || echo "(no plot in the page: gnuplot missing?)"
timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars \
  --user-data-dir="$TMP/profile" --window-size=1280,2400 \
  --screenshot="$TMP/shot.png" "file://$TMP/report/index.html" >"$TMP/chromium.log" 2>&1 || {
  cat "$TMP/chromium.log" >&2; echo "report/screenshot: FAIL: chromium" >&2; exit 1; }
python3 - "$TMP/shot.png" <<'PY'
import struct, sys, zlib

# The PNG's header, then its pixel data inflated: a blank or error page filters to
# long runs of zero bytes with few distinct values; text, tables and plots do not.
data = open(sys.argv[1], 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('report/screenshot: FAIL: not a PNG')
pos, idat = 8, b''
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IHDR':
        w, h = struct.unpack('>II', data[pos + 8:pos + 16])
    elif kind == b'IDAT':
        idat += data[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
triples = len({raw[i:i + 3] for i in range(0, len(raw) - 3, 7)})
nonzero = sum(1 for i in range(0, len(raw), 61) if raw[i]) / (len(raw) / 61)
print('report/screenshot: %dx%d, %d bytes, %d distinct byte triples, %.1f%% non-zero'
      % (w, h, len(data), triples, 100 * nonzero))
if w < 1000 or h < 2000 or len(data) < 60000 or triples < 2000 or nonzero < 0.01:
    sys.exit('report/screenshot: FAIL: the page looks empty')
PY
cp "$TMP/shot.png" "$BUILD/report-screenshot.png"
echo "report/screenshot: ok ($BUILD/report-screenshot.png)"
