#!/usr/bin/env bash
# How exactly a download's rate limit holds (issue #28), side by side in one run: achieved rate ÷
# limit for fdl get --limit-rate, curl --limit-rate and aria2c --max-download-limit, on one and on
# CONNECTIONS connections, for files of each size in SIZES_MIB, from a local nginx (no rate limit of
# its own). Prints a Markdown table.
#
#   swift build -c release --product fdl && Benchmarks/rate-limit.sh
#   LIMIT=4194304 SIZES_MIB="10 64" CONNECTIONS=8 Benchmarks/rate-limit.sh
#   FDL=.build/debug/fdl LIMIT=2097152 SIZES_MIB=1 CONNECTIONS=2 Benchmarks/rate-limit.sh   # tiny (the suite)
#
# Rows per size (GETs: the requests nginx logged in the run; fdl splits only files of 16 MiB and
# more, so its -x N row of a smaller file is one connection): fdl get -x 1, fdl get -x CONNECTIONS, curl --limit-rate (one connection: curl has
# no segments), aria2c -x1 -s1 and aria2c -xN -sN with --max-download-limit (aria2's per-download
# limit, shared by the connections of the download). Achieved rate = size ÷ wall time (nanosecond
# clock, process start to exit, so it includes start-up and the connection set-up); ÷ limit
# above 1 means the limit was exceeded. A token bucket lets a small burst through at the start (fdl:
# 0.1 s worth), so a short download at a high limit reads a little above 1. Every run is bounded by
# `timeout TOOL_TIMEOUT` and its SHA-256 checked; a failed or wrong run is reported in its row and
# makes the script exit 1.
#
# Needs: nginx, curl, aria2c, /usr/bin/time, sha256sum (bash scripts/install-deps.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
LIMIT=${LIMIT:-4194304}
SIZES_MIB=${SIZES_MIB:-10 64}
CONNECTIONS=${CONNECTIONS:-8}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-300}

[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl (or set FDL)" >&2; exit 1; }
for tool in nginx curl aria2c sha256sum timeout; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-bench-rate.XXXXXX)
cleanup() {
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK"
mkdir -p "$WORK/www" "$WORK/out"
started="$(date -u '+%d %b %Y %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
: > "$WORK/results"
failed=0

start_local_nginx "$WORK" 0

# measure SIZE NAME CONNECTIONS SHA COMMAND...: runs COMMAND with an empty $WORK/out, checks the
# SHA-256 of $WORK/out/f.bin, appends "SIZE|NAME|CONNECTIONS|wall_ns|status|requests" to results
# (requests: the GETs nginx logged during the run, so the connections a tool really used show).
measure() {
    local size=$1 name=$2 conns=$3 sha=$4; shift 4
    rm -rf "$WORK/out"; mkdir -p "$WORK/out"
    echo "  $size MiB: $name" >&2
    local start end status=ok code=0 logged
    logged=$(wc -l < "$WORK/logs/access.log")
    start=$(date +%s%N)
    timeout "$TOOL_TIMEOUT" "$@" > "$WORK/cmd.log" 2>&1 || code=$?
    end=$(date +%s%N)
    if [ "$code" = 124 ]; then status="timed out after ${TOOL_TIMEOUT} s"
    elif [ "$code" != 0 ]; then status="failed (exit $code)"
    elif [ "$(sha256sum < "$WORK/out/f.bin" | cut -d' ' -f1)" != "$sha" ]; then status="WRONG BYTES"
    fi
    if [ "$status" != ok ]; then
        failed=1
        echo "  $name: $status" >&2; tail -5 "$WORK/cmd.log" >&2
    fi
    echo "$size|$name|$conns|$((end - start))|$status|$(($(wc -l < "$WORK/logs/access.log") - logged))" >> "$WORK/results"
}

for size in $SIZES_MIB; do
    head -c $((size << 20)) /dev/urandom > "$WORK/www/f$size.bin"
    sha=$(sha256sum < "$WORK/www/f$size.bin" | cut -d' ' -f1)
    url="http://127.0.0.1:$port/f$size.bin"
    out="$WORK/out/f.bin"
    measure "$size" "fdl get --limit-rate -x 1" 1 "$sha" "$FDL" get -q -x 1 --limit-rate "$LIMIT" -d "$WORK/out" -o f.bin "$url"
    measure "$size" "fdl get --limit-rate -x $CONNECTIONS" "$CONNECTIONS" "$sha" "$FDL" get -q -x "$CONNECTIONS" --limit-rate "$LIMIT" -d "$WORK/out" -o f.bin "$url"
    measure "$size" "curl --limit-rate" 1 "$sha" curl -sS --limit-rate "$LIMIT" -o "$out" "$url"
    measure "$size" "aria2c --max-download-limit -x1 -s1" 1 "$sha" aria2c -q -x1 -s1 --max-download-limit="$LIMIT" \
        --file-allocation=none -d "$WORK/out" -o f.bin "$url"
    measure "$size" "aria2c --max-download-limit -x$CONNECTIONS -s$CONNECTIONS" "$CONNECTIONS" "$sha" aria2c -q -x"$CONNECTIONS" \
        -s"$CONNECTIONS" --min-split-size=1M --max-download-limit="$LIMIT" --file-allocation=none -d "$WORK/out" -o f.bin "$url"
    rm -f "$WORK/www/f$size.bin"
done

python3 - "$WORK/results" "$LIMIT" "$started" <<'EOF'
import sys
path, limit, started = sys.argv[1], int(sys.argv[2]), sys.argv[3]
print("%s; one run; limit %d bytes/s (%.2f MiB/s); achieved = file size ÷ wall time" % (started, limit, limit / 2**20))
print()
print("| file | tool | connections asked | GETs | s | achieved MiB/s | ÷ limit | SHA-256 |")
print("|---|---|---|---|---|---|---|---|")
for line in open(path):
    size, name, conns, wall, status, gets = line.rstrip("\n").split("|")
    seconds = int(wall) / 1e9
    achieved = (int(size) << 20) / seconds
    if status == "ok":
        print("| %s MiB | %s | %s | %s | %.2f | %.2f | %.3f | ok |" % (size, name, conns, gets, seconds, achieved / 2**20, achieved / limit))
    else:
        print("| %s MiB | %s | %s | %s | - | - | - | %s |" % (size, name, conns, gets, status))
EOF
exit "$failed"
