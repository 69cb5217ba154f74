#!/usr/bin/env bash
# tests/report/screenshot.sh BUILD_DIR [PLANT]: the ctest tests report/screenshot
# (and, with PLANT, report/screenshot-planted-*, which must fail).
#
# Writes `memcgsim report --quick` (every thread), then opens its index.html in
# headless Chromium at 1400 px twice:
#  1. with a check script added to a copy of the page, whose DOM Chromium dumps
#     after layout: what a reader sees must hold there: every thread's section
#     opens with its table (claim ... verdict, reproduce) before any bench or race,
#     one section per thread report.json lists; no element has id=""; no id is
#     used twice; no table reaches past the page's right edge, and the page does
#     not scroll sideways;
#  2. as a screenshot, kept as BUILD_DIR/report-screenshot.png (the test's
#     artifact; with the check results beside it in report-screenshot.txt), whose
#     PNG must be a page with content (not the zero runs of a blank page).
# PLANT=empty-id, no-thread-table or wide-table first breaks the copy that is
# checked (an id="" on a heading; thread 000's opening table removed; a table of
# one unbreakable line) on a `--thread 0` report; the test then passes only when
# the check fails and names that fault (ctest: report/screenshot-catches-PLANT).
#
# Chromium: /usr/bin/chromium (or MSIM_CHROMIUM); `scripts/install-deps.sh`
# installs it when CI=true or MSIM_INSTALL_CHROMIUM=1. Without it the test skips
# (exit 77), except under CI=true, where a missing browser is a failure.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
PLANT=${2:-}
CHROMIUM=${MSIM_CHROMIUM:-/usr/bin/chromium}
if [ ! -x "$CHROMIUM" ]; then
  if [ "${CI:-}" = true ]; then
    echo "report/screenshot: FAIL: $CHROMIUM is not installed under CI=true" \
         "(scripts/install-deps.sh installs it there)" >&2
    exit 1
  fi
  echo "report/screenshot: skipped: $CHROMIUM is not installed" \
       "(MSIM_INSTALL_CHROMIUM=1 scripts/install-deps.sh installs it)"
  exit 77
fi
TMP=$(mktemp -d "${TMPDIR:-/tmp}/msim-shot.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
OUT=$TMP/report
"$BUILD/memcgsim" report --quick ${PLANT:+--thread 0} --out "$OUT" 2>"$TMP/report.log" || {
  tail -20 "$TMP/report.log" >&2; echo "report/screenshot: FAIL: memcgsim report" >&2; exit 1; }

# Headless, without a profile, network or first-run work of its own.
chrome() {
  timeout 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --hide-scrollbars --user-data-dir="$(mktemp -d "$TMP/profile.XXXX")" \
    --window-size=1400,2400 "$@" 2>>"$TMP/chromium.log"
}

threads=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["threads"]))' \
          "$OUT/report.json")

# The copy that is checked: the page, a planted fault if asked, then the check
# script, which writes what it found into <pre id="msim-check"> as JSON.
python3 - "$OUT/index.html" "$OUT/checked.html" "$PLANT" <<'PY'
import re, sys
html = open(sys.argv[1]).read()
plant = sys.argv[3]
if plant == 'empty-id':
    html = html.replace('<h3 id="bench-', '<h3 id="" data-was="bench-', 1)
elif plant == 'no-thread-table':
    start = html.index('<h2 id="thread-000">')
    t0 = html.index('<table>', start)
    html = html[:t0] + html[html.index('</table>', t0) + len('</table>'):]
elif plant == 'wide-table':
    html = html.replace('</h1>', '</h1>\n<table><tr><td style="white-space:nowrap">'
                        + 'an unbreakable line ' * 200 + '</td></tr></table>', 1)
elif plant:
    sys.exit('unknown plant ' + plant)
check = r'''<script>
(function () {
  var r = {threads: 0, opening_tables: 0, missing: [], empty_ids: 0, duplicate_ids: [],
           wide_tables: [], page_width: document.documentElement.clientWidth,
           scroll_width: document.documentElement.scrollWidth};
  document.querySelectorAll('section.thread').forEach(function (s) {
    r.threads++;
    var h = s.querySelector('h2'), t = null;
    for (var e = h ? h.nextElementSibling : null; e; e = e.nextElementSibling) {
      if (e.tagName === 'TABLE') { t = e; break; }
      if (/^H[34]$/.test(e.tagName)) break;   /* a bench or race came first */
    }
    var head = t ? Array.prototype.map.call(t.querySelectorAll('th'),
                                            function (x) { return x.textContent; }) : [];
    if (t && head.indexOf('verdict') >= 0 && head.indexOf('reproduce') >= 0 &&
        t.querySelectorAll('tr').length > 1)
      r.opening_tables++;
    else
      r.missing.push(h ? h.id : '?');
  });
  var seen = {};
  document.querySelectorAll('[id]').forEach(function (e) {
    if (e.id === '') r.empty_ids++;
    else if (seen[e.id]) r.duplicate_ids.push(e.id);
    seen[e.id] = 1;
  });
  document.querySelectorAll('table').forEach(function (t, i) {
    var b = t.getBoundingClientRect();
    if (b.right > r.page_width + 0.5 || t.scrollWidth > t.clientWidth + 1)
      r.wide_tables.push({index: i, right: b.right,
                          near: (t.previousElementSibling || {}).textContent || ''});
  });
  var pre = document.createElement('pre');
  pre.id = 'msim-check';
  pre.textContent = JSON.stringify(r);
  document.body.appendChild(pre);
})();
</script>
'''
open(sys.argv[2], 'w').write(html.replace('</body>', check + '</body>'))
PY
chrome --dump-dom "file://$OUT/checked.html" >"$TMP/dom.html" || {
  cat "$TMP/chromium.log" >&2; echo "report/screenshot: FAIL: chromium --dump-dom" >&2; exit 1; }
chrome --screenshot="$TMP/shot.png" "file://$OUT/index.html" >/dev/null || {
  cat "$TMP/chromium.log" >&2; echo "report/screenshot: FAIL: chromium --screenshot" >&2; exit 1; }

status=0
python3 - "$TMP/dom.html" "$TMP/shot.png" "$threads" "$TMP/result.txt" <<'PY' || status=$?
import html as H, json, re, struct, sys, zlib

dom, png, threads, out = open(sys.argv[1]).read(), sys.argv[2], int(sys.argv[3]), sys.argv[4]
m = re.search(r'<pre id="msim-check">(.*?)</pre>', dom, re.S)
if not m:
    sys.exit('report/screenshot: FAIL: the check script did not run (no #msim-check)')
r = json.loads(H.unescape(m.group(1)))
bad = []
if r['threads'] != threads:
    bad.append('%d thread sections on the page, report.json lists %d' % (r['threads'], threads))
if r['opening_tables'] != threads:
    bad.append('sections without their opening table: %s' % ', '.join(r['missing']))
if r['empty_ids']:
    bad.append('%d elements with id=""' % r['empty_ids'])
if r['duplicate_ids']:
    bad.append('ids used twice: %s' % ', '.join(r['duplicate_ids'][:10]))
if r['wide_tables']:
    bad.append('tables wider than the %d px page: %s' % (r['page_width'], '; '.join(
        '#%d (right edge %.0f px, after "%s")' % (t['index'], t['right'], t['near'][:60])
        for t in r['wide_tables'][:5])))
if r['scroll_width'] > r['page_width']:
    bad.append('the page scrolls sideways (%d px wide at %d)' % (r['scroll_width'], r['page_width']))

# The screenshot: a PNG with content. A blank or error page filters to long runs
# of zero bytes with few distinct values; text, tables and plots do not.
data = open(png, 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('report/screenshot: FAIL: the screenshot is not a PNG')
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
if w < 1400 or h < 2000 or len(data) < 60000 or triples < 2000 or nonzero < 0.01:
    bad.append('the screenshot looks empty (%dx%d, %d bytes)' % (w, h, len(data)))
summary = ('%d thread sections, %d opening tables, %d empty ids, %d duplicate ids, '
           '%d tables wider than %d px; screenshot %dx%d, %d bytes'
           % (r['threads'], r['opening_tables'], r['empty_ids'], len(r['duplicate_ids']),
              len(r['wide_tables']), r['page_width'], w, h, len(data)))
open(out, 'w').write(summary + '\n' + ''.join('FAIL: %s\n' % b for b in bad))
print('report/screenshot: ' + summary)
for b in bad:
    print('report/screenshot: FAIL: ' + b)
sys.exit(1 if bad else 0)
PY
NAME=report-screenshot${PLANT:+-planted-$PLANT}
cp "$TMP/shot.png" "$BUILD/$NAME.png"
[ -f "$TMP/result.txt" ] && cp "$TMP/result.txt" "$BUILD/$NAME.txt"
echo "report/screenshot: picture kept as $BUILD/$NAME.png"
if [ -n "$PLANT" ]; then
  want=$(case $PLANT in empty-id) echo 'with id=""';;
         no-thread-table) echo 'sections without their opening table: thread-000';;
         wide-table) echo 'tables wider than';; esac)
  if [ "$status" -ne 0 ] && grep -qF "$want" "$BUILD/$NAME.txt"; then
    echo "report/screenshot: ok: the planted $PLANT was caught"
    exit 0
  fi
  echo "report/screenshot: FAIL: the planted $PLANT was not caught" >&2
  exit 1
fi
exit $status
