#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs what is missing, builds, tests.
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh --filter X # passes extra arguments to `swift test`
#   FDL_SKIP_DOCS=1 bash scripts/test.sh  # without building the DocC documentation
#   FDL_TEST_MINUTES=N              # the bound on one `swift test` run (default 40)
#   FDL_TEST_WIDTH=N                # tests run at once (default 12)
set -euo pipefail
cd "$(dirname "$0")/.."

# What the build needs first; the servers and tools only the tests use (nginx, Apache, chromium,
# PostgreSQL, ...) install, and the test set-up runs, while the build compiles (on a fresh machine
# both take minutes, and one waits on the network and the disk, the other on the CPU).
bash scripts/install-deps.sh pkg-config libcurl4-openssl-dev libssh2-1-dev libsqlite3-dev
setup_log=$(mktemp)
(
  bash scripts/install-deps.sh
  for setup in scripts/setup-*.sh; do
    [ -e "$setup" ] && bash "$setup"
  done
) >"$setup_log" 2>&1 &
setup_pid=$!

build_status=0
swift build --build-tests || build_status=$?
setup_status=0
wait "$setup_pid" || setup_status=$?
cat "$setup_log"
rm -f "$setup_log"
if [ "$setup_status" != 0 ]; then
  echo "installing the test dependencies or the test set-up failed (status $setup_status)"
  exit "$setup_status"
fi
[ "$build_status" = 0 ] || exit "$build_status"

# Swift Testing starts every test at once unless told otherwise: some 700 tests, each with its own
# servers, on 2 cores. Twelve at a time finish sooner (225 s against 300 s and more) and without the
# starvation that made real-time limits fail and once stalled the run for good (docs/testing.md).
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH="${FDL_TEST_WIDTH:-12}"

# One `swift test` run, bounded: a run that hangs is stopped after FDL_TEST_MINUTES and the tests
# that started and never ended are named, instead of the run waiting for ever.
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
bounded_test() {
  local log="$log_dir/run-$RANDOM.log" status=0
  timeout --kill-after=30s "${FDL_TEST_MINUTES:-40}m" swift test --skip-build "$@" 2>&1 | tee "$log" || status=$?
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    echo "swift test did not end within ${FDL_TEST_MINUTES:-40} minutes; these tests started and never ended:"
    python3 scripts/unfinished-tests.py "$log"
  fi
  return "$status"
}

# One run for every test target. (The plugin test runs the plugin on this package's .build, where
# the build above made the fdl it needs: it builds nothing and runs beside the others.)
bounded_test "$@"

# Every module's DocC catalog builds, and any DocC warning fails the run (about a minute on a
# 2-core machine after the build above). FDL_SKIP_DOCS=1 skips it.
if [ "${FDL_SKIP_DOCS:-0}" != 1 ]; then
  swift package generate-documentation --warnings-as-errors \
    --target FileDownload --target FileDownloadHTTP --target FileDownloadSFTP --target FileDownloadSQLite \
    --target FileDownloadMock --target FileDownloadConformance --target FileDownloadCLI \
    --target FileDownloadAgent --target FileDownloadAgentClient --target FileDownloadPostgres
fi
