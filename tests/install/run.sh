#!/usr/bin/env bash
# tests/install/run.sh BUILD_DIR SOURCE_DIR [CMAKE]
#
# The ctest test install/example: what a user of the installed package does.
#  1. cmake --install BUILD_DIR into a fresh temporary prefix (a prefix other than
#     the configured one, so it also checks that the package is relocatable);
#  2. check the installed layout (libraries, headers, CMake package, .pc, the
#     command, the documentation under share/doc/memcgsim with its links
#     resolving), and that every installed header compiles on its own;
#  3. copy examples/ out of the source tree and build it there with CMake
#     (find_package, shared and static) and with make + pkg-config (shared and
#     static), each with -Werror so the public headers compile cleanly;
#  4. run the four builds of each example program (race_counter; race_flush,
#     which defines its own race through <memcgsim/race.h>; scripted_flush,
#     which scripts thread 004's trace): each must end with "result: PASS",
#     and all four must print the same lines (they are deterministic).
# MSIM_KEEP_INSTALL_TMP=1 keeps the temporary directory for inspection.
set -euo pipefail

BUILD=$(cd "$1" && pwd)
SRC=$(cd "$2" && pwd)
CMAKE=${3:-cmake}
JOBS=${MSIM_INSTALL_TEST_JOBS:-2}
TMP=$(mktemp -d "${TMPDIR:-/tmp}/msim-install.XXXXXX")
if [ "${MSIM_KEEP_INSTALL_TMP:-0}" = 1 ]; then
  echo "install test: keeping $TMP"
else
  trap 'rm -rf "$TMP"' EXIT
fi
PREFIX=$TMP/prefix
fail() { echo "install test: FAIL: $*" >&2; exit 1; }
step() { echo "== $*"; }

step "install $BUILD into $PREFIX"
"$CMAKE" --install "$BUILD" --prefix "$PREFIX" >"$TMP/install.log" || {
  cat "$TMP/install.log" >&2; fail "cmake --install"; }

step "check the installed layout"
pc=$(find "$PREFIX" -name memcgsim.pc -path '*/pkgconfig/*' | head -n1)
[ -n "$pc" ] || fail "no memcgsim.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in "$libdir/libmemcgsim.so" "$libdir/libmemcgsim.a" \
         "$libdir/cmake/memcgsim/memcgsimConfig.cmake" \
         "$libdir/cmake/memcgsim/memcgsimConfigVersion.cmake" \
         "$libdir/cmake/memcgsim/memcgsimTargets.cmake" \
         "$PREFIX/include/memcgsim/memcgsim.h" \
         "$PREFIX/bin/memcgsim"; do
  [ -e "$f" ] || fail "missing $f"
done
for h in "$SRC"/include/memcgsim/*.h; do
  # introspect.h is the tests' view of the insides: not exported, so not installed.
  if [ "$(basename "$h")" = introspect.h ]; then
    [ ! -e "$PREFIX/include/memcgsim/introspect.h" ] || fail "introspect.h installed"
    continue
  fi
  cmp -s "$h" "$PREFIX/include/memcgsim/$(basename "$h")" || fail "header $(basename "$h") not installed as is"
done
# ... and so are its per-layer parts.
[ ! -e "$PREFIX/include/memcgsim/introspect" ] || fail "include/memcgsim/introspect/ installed"
# Private headers must not leak into the prefix.
if find "$PREFIX/include" -name '*.h' ! -path '*/memcgsim/*' | grep -q .; then
  fail "headers installed outside include/memcgsim"
fi
# The documentation under share/doc/memcgsim: every docs/ page as it is, and every
# relative link of an installed page lands on an installed file.
DOC=$PREFIX/share/doc/memcgsim
for f in "$SRC"/docs/*.md "$SRC"/README.md "$SRC"/CONTRIBUTING.md; do
  rel=${f#"$SRC"/}
  cmp -s "$f" "$DOC/$rel" || fail "$rel not installed as $DOC/$rel"
done
python3 - "$DOC" <<'PY' || fail "a link of the installed documentation does not resolve"
import os, re, sys
doc, bad = sys.argv[1], []
for d, _, files in os.walk(doc):
    for name in files:
        if not name.endswith('.md'):
            continue
        page = os.path.join(d, name)
        for target in re.findall(r'\]\(([^)#\s]+)', open(page).read()):
            if re.match(r'[a-z]+:', target):
                continue
            if not os.path.exists(os.path.normpath(os.path.join(d, target))):
                bad.append('%s -> %s' % (os.path.relpath(page, doc), target))
for b in bad:
    print('install test: unresolved link', b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "ok: $(find "$PREFIX" -type f | wc -l) files"
"$PREFIX/bin/memcgsim" --version >/dev/null || fail "installed memcgsim --version"

step "each installed header compiles alone (C, -Werror; C++ for the umbrella)"
for h in "$PREFIX"/include/memcgsim/*.h; do
  echo "#include <memcgsim/$(basename "$h")>" |
    "${CC:-cc}" -x c -std=gnu11 -Wall -Wextra -Wstrict-prototypes -Werror -fsyntax-only \
      -I"$PREFIX/include" - || fail "$(basename "$h") does not compile on its own"
done
if command -v c++ >/dev/null; then
  echo '#include <memcgsim/memcgsim.h>' |
    c++ -x c++ -Wall -Wextra -Werror -fsyntax-only -I"$PREFIX/include" - ||
    fail "memcgsim.h does not compile as C++"
fi

step "pkg-config"
export PKG_CONFIG_PATH="$(dirname "$pc")${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
ver=$(pkg-config --modversion memcgsim) || fail "pkg-config --modversion memcgsim"
[ -z "${MSIM_EXPECT_VERSION:-}" ] || [ "$ver" = "$MSIM_EXPECT_VERSION" ] ||
  fail "pkg-config version $ver, expected $MSIM_EXPECT_VERSION"
libs=$(pkg-config --libs memcgsim)
slibs=$(pkg-config --static --libs memcgsim)
incdir=$(pkg-config --variable=includedir memcgsim)
echo "version $ver; libs: $libs; static: $slibs"
case " $libs " in *" -lmemcgsim "*) ;; *) fail "pkg-config --libs lacks -lmemcgsim" ;; esac
for l in -lurcu-memb -lck -ljansson; do
  case " $slibs " in *" $l "*) ;; *) fail "pkg-config --static --libs lacks $l" ;; esac
done
[ "$(cd "$incdir" && pwd -P)" = "$(cd "$PREFIX/include" && pwd -P)" ] ||
  fail "pkg-config includedir $incdir is not under the install prefix"

# A copy of examples/ outside the source tree: it may use nothing but the prefix.
cp -r "$SRC/examples" "$TMP/example-src"
rm -rf "$TMP/example-src/build"
WFLAGS="-Wall -Wextra -Werror"

step "build examples/ with CMake (find_package)"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
"$CMAKE" -S "$TMP/example-src" -B "$TMP/cmake-build" "${gen[@]}" \
  -DCMAKE_BUILD_TYPE=Debug -DCMAKE_PREFIX_PATH="$PREFIX" \
  ${CC:+-DCMAKE_C_COMPILER="$CC"} -DCMAKE_C_FLAGS="$WFLAGS" \
  -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF >"$TMP/cmake-configure.log" 2>&1 || {
  cat "$TMP/cmake-configure.log" >&2; fail "configuring examples/ with find_package"; }
found=$(sed -n 's/^memcgsim_DIR:PATH=//p' "$TMP/cmake-build/CMakeCache.txt")
case "$found" in "$PREFIX"/*) ;; *) fail "find_package found memcgsim at '$found', not in $PREFIX" ;; esac
"$CMAKE" --build "$TMP/cmake-build" -j "$JOBS" >"$TMP/cmake-build.log" 2>&1 || {
  cat "$TMP/cmake-build.log" >&2; fail "building examples/ with CMake"; }

step "build examples/ with make + pkg-config"
mkdir -p "$TMP/make-build"
make -s -C "$TMP/example-src" OUT="$TMP/make-build" ${CC:+CC="$CC"} \
  CFLAGS="-O1 -g $WFLAGS" </dev/null >"$TMP/make-build.log" 2>&1 || {
  cat "$TMP/make-build.log" >&2; fail "building examples/ with make"; }

# run_builds PROG: the four builds of examples/PROG.c (CMake and make, shared and
# static) run, each ends with "result: PASS", and all four print the same lines.
run_builds() {
  local prog=$1 ref="" exe out rc
  step "run the four builds of $prog"
  for exe in "$TMP/cmake-build/$prog" "$TMP/cmake-build/${prog}_static" \
             "$TMP/make-build/$prog" "$TMP/make-build/${prog}_static"; do
    [ -x "$exe" ] || fail "$exe was not built"
    out="$exe.out"
    # No LD_LIBRARY_PATH: the shared builds must find libmemcgsim.so by their rpath.
    rc=0
    env -u LD_LIBRARY_PATH -u MSIM_SCHEDULE "$exe" >"$out" 2>"$exe.err" || rc=$?
    [ "$rc" -eq 0 ] || { cat "$out" "$exe.err" >&2; fail "$exe exited with status $rc"; }
    grep -qx 'result: PASS' "$out" || { cat "$out" >&2; fail "$exe did not print 'result: PASS'"; }
    case "$exe" in
    *_static) ! ldd "$exe" | grep -q libmemcgsim || fail "$exe is linked to libmemcgsim.so" ;;
    *) ldd "$exe" | grep libmemcgsim | grep -q "$PREFIX" || {
         ldd "$exe" >&2; fail "$exe does not load libmemcgsim.so from $PREFIX"; } ;;
    esac
    if [ -z "$ref" ]; then
      ref=$out
      cat "$out"
    else
      diff -u "$ref" "$out" >&2 || fail "$exe printed something else than $ref"
    fi
  done
}

# race_counter: the foundation API; race_flush: a race of its own through race.h.
run_builds race_counter
run_builds race_flush
run_builds scripted_flush
run_builds lockdep_abba
echo "install test: PASS (CMake and pkg-config, shared and static)"
