#!/usr/bin/env bash
# Runs the whole test suite N times in a row (default 10) while another build of the package runs
# beside it, and stops at the first failure: the check that no test depends on an idle machine.
#   bash scripts/test-under-load.sh [N]
# The build beside is a release build from scratch in its own directory, restarted whenever it ends.
# Each run's output is kept in $LOGS (default /tmp/fdl-under-load); a summary line per run is printed.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-10}
logs=${LOGS:-/tmp/fdl-under-load}
mkdir -p "$logs"

bash scripts/install-deps.sh >/dev/null
for setup in scripts/setup-*.sh; do [ -e "$setup" ] && bash "$setup" >/dev/null; done
swift build --build-tests >"$logs/build.log" 2>&1 || { tail -20 "$logs/build.log"; exit 1; }

side=$(mktemp -d /tmp/fdl-side-build.XXXXXX)
(
  trap 'exit 0' TERM
  while true; do
    rm -rf "$side/scratch"
    swift build -c release --scratch-path "$side/scratch" >"$side/build.log" 2>&1
  done
) &
beside=$!
stop_beside() { kill -TERM "$beside" 2>/dev/null; pkill -f -- "--scratch-path $side/scratch" 2>/dev/null; wait "$beside" 2>/dev/null; rm -rf "$side"; }
trap stop_beside EXIT

green=0
for i in $(seq 1 "$runs"); do
  start=$(date +%s)
  swift test --skip-build >"$logs/run-$i.log" 2>&1
  rc=$?
  summary=$(grep -E "^(✔|✘) Test run with" "$logs/run-$i.log" | tail -1)
  echo "run $i: exit $rc, $(( $(date +%s) - start )) s, ${summary:-no summary}; load $(cut -d' ' -f1-3 /proc/loadavg)"
  if [ "$rc" -ne 0 ]; then
    grep -E "✘" "$logs/run-$i.log" | head -20
    echo "$green consecutive green runs, then a failure (log: $logs/run-$i.log)"
    exit 1
  fi
  green=$((green + 1))
done
echo "$green consecutive green runs with a build beside (logs: $logs)"
