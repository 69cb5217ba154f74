#!/usr/bin/env bash
# scripts/check-fresh-clone.sh [REPO] - the CI path on a fresh clone.
#
# Clones REPO (default: the repository this script lives in; committed state of
# its current branch only, so uncommitted or untracked files cannot hide a broken
# main) into a temporary directory and runs the README's test command there:
# `make test` (install missing Debian packages, configure the dev preset, build
# with warnings as errors, run ctest). Prints the clone's commit, the time taken
# and the result; exits with make's status.
#
# Environment:
#   KEEP=1                       keep the clone (path printed) instead of deleting it
#   CMAKE_BUILD_PARALLEL_LEVEL   build jobs (default 2: the dev machine is shared)
#   CTEST_PARALLEL_LEVEL         test jobs (ctest's default, 1, when unset)
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
repo=${1:-$here}
branch=$(git -C "$repo" rev-parse --abbrev-ref HEAD)
export CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/msim-fresh.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "check-fresh-clone: keeping $tmp"
else
  trap 'rm -rf "$tmp"' EXIT
fi

git clone -q --branch "$branch" "$repo" "$tmp/libmemcgsim"
cd "$tmp/libmemcgsim"
echo "check-fresh-clone: $(git log -1 --format='%h %s') (branch $branch) in $tmp/libmemcgsim"

start=$(date +%s)
rc=0
make test || rc=$?
secs=$(( $(date +%s) - start ))
if [ "$rc" -eq 0 ]; then
  echo "check-fresh-clone: PASS (make test, ${secs} s)"
else
  echo "check-fresh-clone: FAIL (make test exited $rc after ${secs} s)" >&2
fi
exit "$rc"
