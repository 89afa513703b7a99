#!/usr/bin/env bash
# HTTP benchmark: swift-file-download (Downloader + HTTPTransport, via bench-http) side by side
# with curl and aria2c in one run, against nginx on 127.0.0.1. Prints a Markdown table.
#
#   swift build -c release --product bench-http && Benchmarks/http.sh
#
# Needs: nginx, curl, aria2c, python3 (to write the files), /usr/bin/time (package `time`).
# Everything lives in a temporary directory that is removed at the end; nginx is stopped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${BENCH:-$ROOT/.build/release/bench-http}
SMALL_COUNT=${SMALL_COUNT:-2000}
SLOW_COUNT=${SLOW_COUNT:-1000}
[ -x "$BENCH" ] || { echo "build first: swift build -c release --product bench-http" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || ulimit -n 8192

WORK=$(mktemp -d /tmp/fdl-bench-http.XXXXXX)
NGINX_PID=
cleanup() {
    [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null && wait "$NGINX_PID" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT

PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mkdir -p "$WORK/www/small" "$WORK/nginx" "$WORK/out"
python3 - "$WORK/www" "$SMALL_COUNT" <<'EOF'
import os, sys
root, count = sys.argv[1], int(sys.argv[2])
with open(os.path.join(root, "big.bin"), "wb") as f:
    for _ in range(1024):
        f.write(os.urandom(1 << 20))
for i in range(count):
    with open(os.path.join(root, "small", "f%d" % i), "wb") as f:
        f.write(os.urandom(65536))
EOF

cat > "$WORK/nginx/nginx.conf" <<EOF
$( [ "$(id -u)" = 0 ] && echo "user root;" )
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 8192; }
http {
    access_log off;
    client_body_temp_path $WORK/nginx/client;
    proxy_temp_path $WORK/nginx/proxy;
    fastcgi_temp_path $WORK/nginx/fastcgi;
    uwsgi_temp_path $WORK/nginx/uwsgi;
    scgi_temp_path $WORK/nginx/scgi;
    default_type application/octet-stream;
    sendfile on;
    keepalive_requests 100000;
    server {
        listen 127.0.0.1:$PORT;
        root $WORK/www;
        location /slow/ { alias $WORK/www/small/; limit_rate 8k; }
    }
}
EOF
nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" -e "$WORK/nginx/error.log" &
NGINX_PID=$!
for _ in $(seq 1 500); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.02
done
(exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null || { echo "nginx did not start: $(cat "$WORK/nginx/error.log")" >&2; exit 1; }

BASE="http://127.0.0.1:$PORT"
for i in $(seq 0 $((SMALL_COUNT - 1))); do echo "$BASE/small/f$i"; done > "$WORK/small.list"
for i in $(seq 0 $((SLOW_COUNT - 1))); do echo "$BASE/slow/f$i"; done > "$WORK/slow.list"

# measure NAME COMMAND...: runs COMMAND in a fresh output directory under /usr/bin/time and
# records wall seconds and peak RSS (KiB).
declare -A WALL RSS
measure() {
    local name=$1; shift
    rm -rf "$WORK/out"; mkdir -p "$WORK/out"
    sync
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/cmd.log" 2>&1 \
        || { echo "$name failed:" >&2; tail -5 "$WORK/cmd.log" >&2; exit 1; }
    read -r WALL[$name] RSS[$name] < "$WORK/time"
}
check_big() {
    cmp -s "$WORK/www/big.bin" "$1" || { echo "$2: the downloaded 1 GiB file differs" >&2; exit 1; }
}
count_out() { find "$WORK/out" -type f | wc -l; }

# 1) one 1 GiB file
measure cp cp "$WORK/www/big.bin" "$WORK/out/big.bin"
measure fdl_big "$BENCH" one "$BASE/big.bin" "$WORK/out/big.bin"; check_big "$WORK/out/big.bin" fdl
measure curl_big curl -s -o "$WORK/out/big.bin" "$BASE/big.bin"; check_big "$WORK/out/big.bin" curl
measure aria_big aria2c -q -x1 -s1 --file-allocation=none --allow-overwrite=true -d "$WORK/out" -o big.bin "$BASE/big.bin"
check_big "$WORK/out/big.bin" aria2c

# 2) SMALL_COUNT files of 64 KiB, 16 at a time
measure cp_small cp -r "$WORK/www/small" "$WORK/out/small"
measure fdl_small "$BENCH" many "$WORK/small.list" "$WORK/out" 16
[ "$(count_out)" = "$SMALL_COUNT" ] || { echo "fdl: $(count_out) small files" >&2; exit 1; }
measure aria_small aria2c -q -j16 --file-allocation=none -d "$WORK/out" -i "$WORK/small.list"
[ "$(count_out)" = "$SMALL_COUNT" ] || { echo "aria2c: $(count_out) small files" >&2; exit 1; }
measure curl_small sh -c "xargs -P16 -n $((SMALL_COUNT / 16)) curl -s --output-dir '$WORK/out' --remote-name-all < '$WORK/small.list'"
[ "$(count_out)" = "$SMALL_COUNT" ] || { echo "curl: $(count_out) small files" >&2; exit 1; }

# 3) SLOW_COUNT concurrent slow (8 KiB/s) downloads of 64 KiB: peak memory
measure fdl_slow "$BENCH" slow "$WORK/slow.list" "$WORK/out"
[ "$(count_out)" = "$SLOW_COUNT" ] || { echo "fdl: $(count_out) slow files" >&2; exit 1; }
measure aria_slow aria2c -q -j"$SLOW_COUNT" --file-allocation=none -d "$WORK/out" -i "$WORK/slow.list"
[ "$(count_out)" = "$SLOW_COUNT" ] || { echo "aria2c: $(count_out) slow files" >&2; exit 1; }

mbs() { python3 -c "print('%.0f' % (1073741824 / $1 / 1e6))"; }
fps() { python3 -c "print('%.0f' % ($SMALL_COUNT / $1))"; }
ratio() { python3 -c "print('%.2f' % ($1 / $2))"; }
FDL_BIG=$(mbs "${WALL[fdl_big]}"); CURL_BIG=$(mbs "${WALL[curl_big]}"); ARIA_BIG=$(mbs "${WALL[aria_big]}"); CP_BIG=$(mbs "${WALL[cp]}")
FDL_SMALL=$(fps "${WALL[fdl_small]}"); CURL_SMALL=$(fps "${WALL[curl_small]}"); ARIA_SMALL=$(fps "${WALL[aria_small]}"); CP_SMALL=$(fps "${WALL[cp_small]}")

cat <<EOF
| Case | swift-file-download | curl | aria2c | cp | fdl / curl | fdl / aria2c | fdl / cp |
|---|---|---|---|---|---|---|---|
| 1 GiB file, MB/s | $FDL_BIG | $CURL_BIG (\`curl -o\`) | $ARIA_BIG (\`-x1\`) | $CP_BIG | $(ratio "$FDL_BIG" "$CURL_BIG") | $(ratio "$FDL_BIG" "$ARIA_BIG") | $(ratio "$FDL_BIG" "$CP_BIG") |
| $SMALL_COUNT × 64 KiB, 16 at a time, files/s | $FDL_SMALL | $CURL_SMALL (\`xargs -P16 curl\`) | $ARIA_SMALL (\`-j16\`) | $CP_SMALL (\`cp -r\`) | $(ratio "$FDL_SMALL" "$CURL_SMALL") | $(ratio "$FDL_SMALL" "$ARIA_SMALL") | $(ratio "$FDL_SMALL" "$CP_SMALL") |
| $SLOW_COUNT concurrent slow downloads, peak RSS MiB | $((${RSS[fdl_slow]} / 1024)) | – | $((${RSS[aria_slow]} / 1024)) (\`-j$SLOW_COUNT\`) | – | – | $(ratio "${RSS[fdl_slow]}" "${RSS[aria_slow]}") | – |

Per slow download: swift-file-download $(python3 -c "print('%.1f' % (${RSS[fdl_slow]} / $SLOW_COUNT))") KiB, aria2c $(python3 -c "print('%.1f' % (${RSS[aria_slow]} / $SLOW_COUNT))") KiB (peak RSS / $SLOW_COUNT).
Peak RSS on the 1 GiB file: swift-file-download $((${RSS[fdl_big]} / 1024)) MiB, curl $((${RSS[curl_big]} / 1024)) MiB, aria2c $((${RSS[aria_big]} / 1024)) MiB.
EOF
