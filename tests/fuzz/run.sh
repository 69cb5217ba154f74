#!/usr/bin/env bash
# run.sh TARGET SEEDS SECONDS: fuzz TARGET for SECONDS from the seed corpus SEEDS
# (read only: new inputs go to a temporary corpus), one job, a fixed seed so a
# run can be repeated. A crash, leak or timeout leaves its input in the current
# directory (crash-*, leak-*, timeout-*) and fails; the last lines say how many
# executions ran.
set -euo pipefail
target=$1 seeds=$2 seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$target" -max_total_time="$seconds" -seed=1 -timeout=20 -rss_limit_mb=4096 \
  -print_final_stats=1 "$work" "$seeds" 2>"$work/log" || { tail -60 "$work/log"; exit 1; }
grep -E "^stat::number_of_executed_units|^stat::new_units_added|^#[0-9]+.*DONE" "$work/log" || true
