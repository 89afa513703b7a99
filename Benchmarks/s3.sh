#!/usr/bin/env bash
# S3 benchmark against a local S3-compatible server (moto's server mode, signatures checked), side
# by side in one run: fdl get s3:// on one and on CONNECTIONS connections beside the AWS CLI's
# `aws s3 cp` (awscli from PyPI, the same virtualenv as moto: scripts/moto-s3.sh). Prints a
# Markdown table. moto is a Python server: it, not the clients, is the bottleneck, so compare the
# rows with each other, not with the HTTP benchmark.
#
#   swift build -c release --product fdl && Benchmarks/s3.sh
#   SIZE_MIB=256 CONNECTIONS=8 Benchmarks/s3.sh
#   FDL=.build/debug/fdl SIZE_MIB=1 CONNECTIONS=2 Benchmarks/s3.sh   # tiny (the suite)
#
# Rows: fdl get -x 1, fdl get -x CONNECTIONS (fdl splits only files of 16 MiB and more), aws s3 cp
# (its defaults: ranged GETs of 8 MiB, 10 at a time, for objects of 8 MiB and more). Each tool gets
# the same keys in the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION) and the
# endpoint as --endpoint-url. Seconds = wall time of the process (start-up and signing included);
# every run is bounded by `timeout TOOL_TIMEOUT` and its SHA-256 checked; a failed or wrong run is
# reported in its row and makes the script exit 1.
#
# Needs: python3-venv (moto and awscli are installed into ~/.cache/fdl-test-venv the first time),
# sha256sum, timeout.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
. "$ROOT/Benchmarks/lib.sh"
SIZE_MIB=${SIZE_MIB:-1024}
CONNECTIONS=${CONNECTIONS:-4}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}

[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl (or set FDL)" >&2; exit 1; }
for tool in python3 sha256sum timeout; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/fdl-bench-s3.XXXXXX)
coproc MOTO { exec bash "$ROOT/scripts/moto-s3.sh" 2> "$WORK/moto.err"; }
moto_pid=$MOTO_PID
cleanup() {
    exec {MOTO[1]}>&- 2> /dev/null || true   # end of input: the server stops
    kill "$moto_pid" 2> /dev/null || true
    wait "$moto_pid" 2> /dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

if ! read -r -t 600 started <&"${MOTO[0]}"; then
    echo "the S3 server did not start:" >&2; cat "$WORK/moto.err" >&2; exit 1
fi
field() { python3 -c "import json, sys; print(json.loads(sys.argv[1])[sys.argv[2]])" "$started" "$1"; }
endpoint=$(field endpoint)
export AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_REGION=us-east-1
AWS_ACCESS_KEY_ID=$(field accessKeyID)
AWS_SECRET_ACCESS_KEY=$(field secretAccessKey)
unset AWS_SESSION_TOKEN AWS_PROFILE AWS_ENDPOINT_URL AWS_ENDPOINT_URL_S3 AWS_DEFAULT_REGION
export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null

mkdir -p "$WORK/out"
head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/object.bin"
expected=$(sha256sum "$WORK/object.bin" | cut -d' ' -f1)
echo "{\"bucket\": \"bench\", \"key\": \"object.bin\", \"path\": \"$WORK/object.bin\"}" >&"${MOTO[1]}"
read -r -t 1200 answer <&"${MOTO[0]}" || answer="no answer"
[ "${answer#ok }" != "$answer" ] || { echo "the S3 server did not store the object: $answer" >&2; exit 1; }
rm -f "$WORK/object.bin"

failed=0
# run NAME FILE COMMAND...: runs the command, prints its row (seconds, MB/s, SHA-256 of FILE).
run() {
    local name=$1; shift
    timed_run "$@"
    local rate
    rate=$(python3 -c "print(f'{$SIZE_MIB * 1048576 / $run_elapsed / 1e6:.0f}')")
    echo "| $SIZE_MIB MiB | $name | $run_seconds | $rate | $run_verdict |"
}

echo "| object | tool | seconds | MB/s | bytes |"
echo "|---|---|---|---|---|"
run "fdl get -x 1" "$WORK/out/object.bin" \
    "$FDL" get "s3://bench/object.bin" -d "$WORK/out" --state "$WORK/state1" -x 1 --endpoint-url "$endpoint" --json
run "fdl get -x $CONNECTIONS" "$WORK/out/object.bin" \
    "$FDL" get "s3://bench/object.bin" -d "$WORK/out" --state "$WORK/state2" -x "$CONNECTIONS" --endpoint-url "$endpoint" --json
run "aws s3 cp" "$WORK/out/aws.bin" \
    bash "$ROOT/scripts/moto-s3.sh" --aws s3 cp "s3://bench/object.bin" "$WORK/out/aws.bin" --endpoint-url "$endpoint" --only-show-errors
exit "$failed"
