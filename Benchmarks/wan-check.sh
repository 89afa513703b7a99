#!/usr/bin/env bash
# Checks that the shaping proxy (Benchmarks/shaping_proxy.py) shapes: curl fetches a file from
# nginx on 127.0.0.1 directly and through the proxy, and prints the first-byte delay and the rate
# of each, with what the proxy was set to. The full #14 benchmark builds on the same proxy.
#
#   Benchmarks/wan-check.sh                       # 20 ms each way, 20 MB/s per connection
#   DELAY_MS=50 RATE=5000000 Benchmarks/wan-check.sh
#
# A rate whose time after the first byte is 0 (a tiny file) prints "-".
# Needs: nginx, curl, python3. Everything lives in a temporary directory removed at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DELAY_MS=${DELAY_MS:-20}
RATE=${RATE:-20000000}
SIZE_MIB=${SIZE_MIB:-64}
for tool in nginx curl python3; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-wan-check.XXXXXX)
cleanup() {
    stop_shaping_proxy
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/www"
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/www/file.bin"
LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0
start_shaping_proxy "$port" "$DELAY_MS" "$RATE" "$WORK/proxy.log"

# fetch LABEL PORT: one curl of the file; prints the row.
fetch() {
    local label=$1 via=$2
    curl -s -o "$WORK/out.bin" -w '%{time_connect} %{time_starttransfer} %{time_total} %{size_download}\n' \
        "http://127.0.0.1:$via/file.bin" > "$WORK/timing"
    cmp -s "$WORK/out.bin" "$WORK/www/file.bin" || { echo "$label: the file differs" >&2; exit 1; }
    read -r connect first total size < "$WORK/timing"
    awk -v l="$label" -v c="$connect" -v f="$first" -v t="$total" -v s="$size" 'BEGIN {
        r = t - f > 0 ? sprintf("%.1f", s / (t - f) / 1e6) : "-"   # a tiny file can end with its first byte
        printf "| %s | %.1f | %.1f | %s |\n", l, c * 1000, f * 1000, r }'
}

# fetch_parallel LABEL PORT N: N curls at once, each one range of 1/N of the file; prints the row
# (first byte: the slowest curl's; rate: the whole file over the wall time after the first bytes).
fetch_parallel() {
    local label=$1 via=$2 n=$3 size=$((SIZE_MIB << 20)) i start end
    local began; began=$(date +%s.%N)
    local pids=()
    for i in $(seq 0 $((n - 1))); do
        start=$((size * i / n)); end=$((size * (i + 1) / n - 1))
        curl -s -r "$start-$end" -o "$WORK/part$i" -w '%{time_starttransfer}\n' \
            "http://127.0.0.1:$via/file.bin" > "$WORK/first$i" &
        pids+=($!)
    done
    wait "${pids[@]}"   # not nginx and the proxy, which run in the background too
    local ended; ended=$(date +%s.%N)
    for i in $(seq 0 $((n - 1))); do cat "$WORK/part$i"; done | cmp -s - "$WORK/www/file.bin" \
        || { echo "$label: the parts differ from the file" >&2; exit 1; }
    local first; first=$(cat "$WORK"/first* | sort -n | tail -1)
    awk -v l="$label" -v f="$first" -v s="$size" -v b="$began" -v e="$ended" 'BEGIN {
        r = e - b - f > 0 ? sprintf("%.1f", s / (e - b - f) / 1e6) : "-"
        printf "| %s | - | %.1f | %s |\n", l, f * 1000, r }'
}

echo "Set: ${DELAY_MS} ms each way (round trip $((2 * DELAY_MS)) ms), $(awk -v r="$RATE" 'BEGIN { printf "%.1f", r / 1e6 }') MB/s per connection; ${SIZE_MIB} MiB file; $(date -u '+%d %b %Y %H:%M UTC')"
echo
echo "| curl -o | connect (ms) | first byte (ms) | body rate (MB/s) |"
echo "|---|---|---|---|"
fetch "nginx direct" "$port"
fetch "through the proxy" "$proxy_port"
fetch "through the proxy (again)" "$proxy_port"
fetch_parallel "8 ranges at once through the proxy" "$proxy_port" 8
