#!/usr/bin/env bash
# HTTP benchmark: swift-file-download (Downloader + HTTPTransport, via bench-http; and the `fdl get`
# command line on the small files) side by side with curl and aria2c in one run, against nginx on
# 127.0.0.1. Prints a Markdown table.
#
#   swift build -c release --product bench-http && swift build -c release --product fdl && Benchmarks/http.sh
#   BENCH=.build/debug/bench-http FDL=.build/debug/fdl ROUNDS=1 BIG_MIB=4 SMALL_COUNT=20 SLOW_COUNT=4 \
#       SLOW_RATE=4m WRK_SECONDS=1 CANCEL_ROUNDS=3 Benchmarks/http.sh   # tiny (the suite)
#
# Sizes: BIG_MIB (1024) for the one big file, SMALL_COUNT (2000) files of 64 KiB, SLOW_COUNT (1000)
# of them at SLOW_RATE (8k, nginx's limit_rate), wrk for WRK_SECONDS (3), CANCEL_ROUNDS (100)
# cancellations (always on a file served at 8k). Every file a tool saves is compared with the served
# one byte for byte.
#
# Needs: nginx, curl, aria2c, wrk, python3 (to write the files), /usr/bin/time (package `time`).
# Everything lives in a temporary directory that is removed at the end; nginx is stopped.
#
# Wall times come from a nanosecond clock around each command (`/usr/bin/time` rounds to 10 ms,
# and `cp -r` of the small files takes 60-120 ms on a warm cache); peak RSS, user and system time
# from /usr/bin/time; nginx's CPU time from /proc before and after each run.
#
# FRESH_CACHE=1 (root only) drops the page cache before every timed run, then reads back the
# files being served and every tool's binary and libraries: each tool then writes into pages the
# guest has just freed. Without it, what a run costs depends on how long ago the VM last touched
# the memory it writes into (up to 5x for `cp -r` here; see docs/benchmarks-history.md).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=${BENCH:-$ROOT/.build/release/bench-http}
FDL=${FDL:-$ROOT/.build/release/fdl}
SMALL_COUNT=${SMALL_COUNT:-2000}
SLOW_COUNT=${SLOW_COUNT:-1000}
BIG_MIB=${BIG_MIB:-1024}
SLOW_RATE=${SLOW_RATE:-8k}
WRK_SECONDS=${WRK_SECONDS:-3}
CANCEL_ROUNDS=${CANCEL_ROUNDS:-100}
CASES=${CASES:-big small slow cancel}   # a subset reruns part of the table; missing rows print as -
# the small-file rows to run (a subset, e.g. "fdl nosync curl", compares two builds quickly; curl is
# the reference every ratio is taken against, so keep it)
SMALL_TOOLS=${SMALL_TOOLS:-cp fdl fdlget nosync raw aria curl wrk}
FRESH_CACHE=${FRESH_CACHE:-0}
wants() { case " $CASES " in *" $1 "*) return 0;; esac; return 1; }
[ -x "$BENCH" ] || { echo "build first: swift build -c release --product bench-http" >&2; exit 1; }
if wants small && [[ " $SMALL_TOOLS " == *" fdlget "* ]]; then [ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl" >&2; exit 1; }; fi
for tool in nginx curl aria2c wrk python3 /usr/bin/time; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done
if [ "$FRESH_CACHE" = 1 ] && ! [ -w /proc/sys/vm/drop_caches ]; then
    echo "FRESH_CACHE=1 needs root (it writes /proc/sys/vm/drop_caches)" >&2; exit 1
fi
ulimit -n 65536 2>/dev/null || ulimit -n 8192

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-bench-http.XXXXXX)
cleanup() {
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/www/small"
python3 - "$WORK/www" "$SMALL_COUNT" "$BIG_MIB" <<'EOF'
import os, sys
root, count, big_mib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(os.path.join(root, "big.bin"), "wb") as f:
    for _ in range(big_mib):
        f.write(os.urandom(1 << 20))
for i in range(count):
    with open(os.path.join(root, "small", "f%d" % i), "wb") as f:
        f.write(os.urandom(65536))
EOF

# nginx without a rate limit (0) and without access log; /slow/ serves the small files at SLOW_RATE
# (8 KiB/s), /crawl/ always at 8 KiB/s (the cancellations need a download that is still running).
LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0 \
    "location /slow/ { alias $WORK/www/small/; limit_rate $SLOW_RATE; } location /crawl/ { alias $WORK/www/small/; limit_rate 8k; }"
PORT=$port

BASE="http://127.0.0.1:$PORT"
for i in $(seq 0 $((SMALL_COUNT - 1))); do echo "$BASE/small/f$i"; done > "$WORK/small.list"
for i in $(seq 0 $((SLOW_COUNT - 1))); do echo "$BASE/slow/f$i"; done > "$WORK/slow.list"

# measure NAME COMMAND...: runs COMMAND in a fresh output directory and appends
# "NAME wall_seconds peak_rss_kib user_seconds system_seconds nginx_cpu_seconds" to the results.
ROUNDS=${ROUNDS:-3}
# Every run writes into a new directory ($WORK/out is a symlink to it) and small files are not
# deleted until the end: ext4 skips inodes freed moments ago when it allocates new ones, so a run
# right after deleting 2,000 files pays for the deletion (seen here as 3x the system time).
SEQ=0
CLOCK_TICKS=$(getconf CLK_TCK)
nginx_ticks() { awk '{ print $14 + $15 }' "/proc/$nginx_pid/stat"; }
# warm_caches: what FRESH_CACHE=1 does before a run (see the head of this file).
warm_caches() {
    local lib
    sync
    echo 3 > /proc/sys/vm/drop_caches
    if wants big; then cat "$WORK/www/big.bin" > /dev/null; fi
    cat "$WORK/www/small/"* > /dev/null
    for lib in $(ldd "$BENCH" "$FDL" "$(command -v curl)" "$(command -v aria2c)" "$(command -v wrk)" | awk '/=>/ { print $3 }' | sort -u); do
        cat "$lib" > /dev/null
    done
    "$BENCH" > /dev/null 2>&1 || true
    for tool in curl aria2c wrk cp; do "$tool" --version > /dev/null 2>&1 || true; done
}
measure() {
    local name=$1; shift
    SEQ=$((SEQ + 1))
    mkdir -p "$WORK/runs/$SEQ"
    rm -f "$WORK/out"; ln -s "$WORK/runs/$SEQ" "$WORK/out"
    sync
    if [ "$FRESH_CACHE" = 1 ]; then warm_caches; fi
    local ticks0 start end ticks1 rss user sys
    ticks0=$(nginx_ticks)
    start=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$WORK/time" "$@" > "$WORK/cmd.log" 2>&1 \
        || { echo "$name failed:" >&2; tail -5 "$WORK/cmd.log" >&2; exit 1; }
    end=$(date +%s%N)
    ticks1=$(nginx_ticks)
    read -r rss user sys < "$WORK/time"
    awk -v name="$name" -v ns="$((end - start))" -v rss="$rss" -v user="$user" -v sys="$sys" \
        -v ticks="$((ticks1 - ticks0))" -v hz="$CLOCK_TICKS" \
        'BEGIN { printf "%s %.6f %s %s %s %.2f\n", name, ns / 1e9, rss, user, sys, ticks / hz }' >> "$WORK/results"
}
check_big() {
    cmp -s "$WORK/www/big.bin" "$WORK/out/big.bin" || { echo "$1: the downloaded $BIG_MIB MiB file differs" >&2; exit 1; }
    rm -f "$WORK/out/big.bin"
}
check_count() {   # the files a tool saved (fdl's state in out/.fdl is not one of them), each byte-exact
    local n file; n=$(find "$WORK/out/" -type f -not -path "$WORK/out/.fdl/*" | wc -l)
    [ "$n" = "$2" ] || { echo "$1: $n files instead of $2" >&2; exit 1; }
    while IFS= read -r file; do
        cmp -s "$file" "$WORK/www/small/$(basename "$file")" || { echo "$1: $file differs from the served file" >&2; exit 1; }
    done < <(find "$WORK/out/" -type f -not -path "$WORK/out/.fdl/*")
}
: > "$WORK/results"

# 1) one BIG_MIB (1 GiB) file; every tool once per round, in rotating order, so drifts hit all alike
big_cp() { measure cp_big cp "$WORK/www/big.bin" "$WORK/out/big.bin"; rm -f "$WORK/out/big.bin"; }
big_fdl() { measure fdl_big "$BENCH" one "$BASE/big.bin" "$WORK/out/big.bin"; check_big fdl; }
big_nosync() { measure fdl_nosync_big env FDL_NO_SYNC=1 "$BENCH" one "$BASE/big.bin" "$WORK/out/big.bin"; check_big fdl-nosync; }
big_raw() { measure fdl_raw_big env FDL_RAW=1 "$BENCH" one "$BASE/big.bin" "$WORK/out/big.bin"; check_big fdl-raw; }
big_curl() { measure curl_big curl -s -o "$WORK/out/big.bin" "$BASE/big.bin"; check_big curl; }
big_aria() {
    measure aria_big aria2c -q -x1 -s1 --file-allocation=none --allow-overwrite=true -d "$WORK/out" -o big.bin "$BASE/big.bin"
    check_big aria2c
}
wants big && for round in $(seq 1 "$ROUNDS"); do
    in_rotation "$round" big_cp big_fdl big_nosync big_raw big_curl big_aria
done

# 2) SMALL_COUNT files of 64 KiB, 16 at a time
small_cp() { measure cp_small cp -r "$WORK/www/small" "$WORK/out/small"; }
small_fdl() { measure fdl_small "$BENCH" many "$WORK/small.list" "$WORK/out" 16; check_count fdl "$SMALL_COUNT"; }
small_nosync() {
    measure fdl_nosync_small env FDL_NO_SYNC=1 "$BENCH" many "$WORK/small.list" "$WORK/out" 16
    check_count fdl-nosync "$SMALL_COUNT"
}
# the command line: fdl get with its state (SQLite) in out/.fdl, plain log lines to a file
small_fdlget() {
    # shellcheck disable=SC2046  # one argument per URL
    measure fdlget_small "$FDL" get -j 16 -d "$WORK/out" $(cat "$WORK/small.list")
    check_count "fdl get" "$SMALL_COUNT"
}
small_raw() { measure fdl_raw_small env FDL_RAW=1 "$BENCH" many "$WORK/small.list" "$WORK/out" 16; check_count fdl-raw "$SMALL_COUNT"; }
small_aria() {
    measure aria_small aria2c -q -j16 --file-allocation=none -d "$WORK/out" -i "$WORK/small.list"
    check_count aria2c "$SMALL_COUNT"
}
small_curl() {
    measure curl_small sh -c "xargs -P16 -n $((SMALL_COUNT / 16)) curl -s --output-dir '$WORK/out' --remote-name-all < '$WORK/small.list'"
    check_count curl "$SMALL_COUNT"
}
# The HTTP ceiling: wrk asks for the same files over 16 keep-alive connections for WRK_SECONDS and throws
# the bodies away (no file is written). Its rate, and its and nginx's CPU scaled to SMALL_COUNT
# requests, say how fast any client could fetch these files from this nginx on this machine.
cat > "$WORK/rotate.lua" <<LUA
counter = -1
request = function()
  counter = (counter + 1) % $SMALL_COUNT
  return wrk.format("GET", "/small/f" .. counter)
end
LUA
small_wrk() {
    measure wrk_run wrk -t2 -c16 "-d${WRK_SECONDS}s" -s "$WORK/rotate.lua" "$BASE/"
    python3 - "$WORK/results" "$WORK/cmd.log" "$SMALL_COUNT" <<'EOF_WRK'
import re, sys
results, log, count = sys.argv[1], open(sys.argv[2]).read(), int(sys.argv[3])
lines = open(results).read().splitlines()
name, wall, rss, user, sys_, nginx = lines[-1].split()
m = re.search(r"(\d+) requests in ([\d.]+)s", log)
if not m or "Non-2xx" in log or "Socket errors" in log:
    sys.exit("wrk did not fetch the files cleanly:\n" + log)
requests, seconds = int(m.group(1)), float(m.group(2))
scale = count / requests
lines[-1] = f"wrk_small {seconds * scale} {rss} {float(user) * scale} {float(sys_) * scale} {float(nginx) * scale}"
open(results, "w").write("\n".join(lines) + "\n")
EOF_WRK
}
SMALL_RUNS=()
for tool in $SMALL_TOOLS; do SMALL_RUNS+=("small_$tool"); done
wants small && for round in $(seq 1 "$ROUNDS"); do
    in_rotation "$round" "${SMALL_RUNS[@]}"
done

# 3) SLOW_COUNT concurrent slow (8 KiB/s) downloads of 64 KiB: peak memory, and one alone for the
#    process's baseline
if wants slow; then
    head -1 "$WORK/slow.list" > "$WORK/slow1.list"
    measure fdl_slow1 "$BENCH" slow "$WORK/slow1.list" "$WORK/out"
    measure fdl_slow "$BENCH" slow "$WORK/slow.list" "$WORK/out"; check_count fdl "$SLOW_COUNT"
    measure fdl_raw_slow env FDL_RAW=1 "$BENCH" slow "$WORK/slow.list" "$WORK/out"; check_count fdl-raw "$SLOW_COUNT"
    measure aria_slow1 aria2c -q --file-allocation=none -d "$WORK/out" -i "$WORK/slow1.list"
    measure aria_slow aria2c -q -j"$SLOW_COUNT" --file-allocation=none -d "$WORK/out" -i "$WORK/slow.list"
    check_count aria2c "$SLOW_COUNT"
fi

# 4) cancellation latency: from Task.cancel() to the return of transfer, on a slow download
echo "not run" > "$WORK/cancel.txt"
wants cancel && "$BENCH" cancel "$BASE/crawl/f0" "$CANCEL_ROUNDS" > "$WORK/cancel.txt"

python3 - "$WORK/results" "$SMALL_COUNT" "$SLOW_COUNT" "$BIG_MIB" <<'EOF2'
import os, statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
small, slow, big_mib = int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
def median(n, value):
    v = [value([float(x) for x in r[1:]]) for r in rows if r[0] == n]
    return statistics.median(v) if v else None
def wall(n):
    return median(n, lambda r: r[0])
def cpu(n):
    return median(n, lambda r: r[2] + r[3])
def nginx_cpu(n):
    return median(n, lambda r: r[4])
def rss(n):
    v = [int(r[2]) for r in rows if r[0] == n]
    return max(v) if v else None
names = ["fdl", "fdl_nosync", "fdl_raw", "curl", "aria", "cp"]
if wall("curl_big"):
    mbs = {n: big_mib * (1 << 20) / wall(n + "_big") / 1e6 for n in names}
    big_label = "1 GiB" if big_mib == 1024 else f"{big_mib} MiB"
    print(f"| {big_label} file (median of rounds) | MB/s | ÷ curl -o | ÷ aria2c -x1 | ÷ cp |")
    print("|---|---|---|---|---|")
    for n, label in [("fdl", "swift-file-download (Downloader: fsync + rename)"),
                     ("fdl_nosync", "swift-file-download (Downloader, synchronizesFiles: false)"), ("fdl_raw", "HTTPTransport alone (bench-http, FDL_RAW=1)"),
                     ("curl", "curl -o"), ("aria", "aria2c -x1"), ("cp", "cp")]:
        print(f"| {label} | {mbs[n]:.0f} | {mbs[n] / mbs['curl']:.2f} | {mbs[n] / mbs['aria']:.2f} | {mbs[n] / mbs['cp']:.2f} |")
    print()
if wall("curl_small"):
    names = names + ["fdlget", "wrk"]
    fps = {n: small / wall(n + "_small") for n in names if wall(n + "_small")}
    def ratio(n, to):
        return f"{fps[n] / fps[to]:.2f}" if to in fps else "-"
    print(f"| {small} × 64 KiB, 16 at a time (median) | files/s | ÷ xargs -P16 curl | ÷ aria2c -j16 | ÷ cp -r | client CPU s | nginx CPU s |")
    print("|---|---|---|---|---|---|---|")
    for n, label in [("fdl", "swift-file-download (Downloader)"), ("fdlget", "fdl get -j 16 (state in SQLite)"),
                     ("fdl_nosync", "swift-file-download (Downloader, synchronizesFiles: false)"), ("fdl_raw", "HTTPTransport alone"),
                     ("curl", "xargs -P16 curl (batched)"), ("aria", "aria2c -j16"), ("cp", "cp -r"),
                     ("wrk", "wrk -t2 -c16: HTTP ceiling, no file written")]:
        if n not in fps: continue   # not in SMALL_TOOLS
        print(f"| {label} | {fps[n]:.0f} | {ratio(n, 'curl')} | {ratio(n, 'aria')} | {ratio(n, 'cp')} "
              f"| {cpu(n + '_small'):.3f} | {nginx_cpu(n + '_small'):.3f} |")
    print()
    if "fdlget" in fps and "fdl" in fps:
        print(f"fdl get ÷ Downloader, wall time: {wall('fdlget_small') / wall('fdl_small'):.2f}")
        print()
    # A client that fetches and writes these files needs at least what wrk spends to receive them,
    # what nginx spends to send them and what cp spends to write them; spread perfectly over the cores.
    cores = os.cpu_count()
    floor = (cpu("wrk_small") + nginx_cpu("wrk_small") + cpu("cp_small")) / cores if "wrk" in fps and "cp" in fps else None
    if floor is not None: print(f"CPU floor for any HTTP client here: (wrk {cpu('wrk_small'):.3f} s + nginx {nginx_cpu('wrk_small'):.3f} s "
          f"+ cp -r {cpu('cp_small'):.3f} s) ÷ {cores} cores = {floor:.3f} s, so at best "
          f"{wall('cp_small') / floor if floor > 0 else float('inf'):.2f}x cp -r ({wall('cp_small'):.3f} s).")
    print()
if rss("fdl_slow"):
    print(f"| {slow} concurrent slow downloads | peak RSS MiB | KiB per download (peak / {slow}) | KiB per download above one alone |")
    print("|---|---|---|---|")
    for n, one, label in [("fdl_slow", "fdl_slow1", "swift-file-download (Downloader)"), ("fdl_raw_slow", "fdl_slow1", "HTTPTransport alone"),
                          ("aria_slow", "aria_slow1", f"aria2c -j{slow}")]:
        print(f"| {label} | {rss(n) / 1024:.0f} | {rss(n) / slow:.1f} | {(rss(n) - rss(one)) / (slow - 1):.1f} |")
    print()
    print(f"One slow download alone: swift-file-download {rss('fdl_slow1') / 1024:.0f} MiB, aria2c {rss('aria_slow1') / 1024:.0f} MiB.")
if wall("curl_big"):
    print(f"Peak RSS on the {big_label} file: swift-file-download {rss('fdl_big') / 1024:.0f} MiB, curl {rss('curl_big') / 1024:.0f} MiB, aria2c {rss('aria_big') / 1024:.0f} MiB.")
EOF2
echo
echo "Cancellation (HTTPTransport, slow download, from Task.cancel() to transfer's return): $(cat "$WORK/cancel.txt")"
