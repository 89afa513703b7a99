#!/usr/bin/env bash
# Agent benchmark: the download agent (`fdl agent`, release build) side by side with an in-process
# Downloader and with `aria2c --enable-rpc`, in one run, against nginx on 127.0.0.1. Prints
# Markdown tables.
#
#   swift build -c release --product fdl && swift build -c release --product bench-agent && Benchmarks/agent.sh
#
# 1. Submitting COUNT downloads: through the agent's API in batches of 1,000 (`POST /v1/downloads`
#    with an array, each answered once the store has it all) and one request per download (8 at a
#    time, each answered once the store has it) vs `Downloader.start` / `Downloader.add` in the
#    process (then `settle()`), all with SQLite stores; started (4 run, at 1 KiB/s, the rest wait)
#    and added only.
# 2. Event latency: from adding a download to its `notStarted` event at the same caller, through
#    the agent (POST + server-sent event) and in-process (`add` + `events()`); median and p99.
# 3. Memory with COUNT queued downloads (4 running at 1 KiB/s): the agent's RSS and peak RSS
#    (VmRSS/VmHWM) against aria2c --enable-rpc given the same COUNT URLs through `aria2.addUri`
#    (8 requests at a time, 4 running), both measured after the last answer.
# 4. Throughput: RUNNING downloads of FILE_MIB MiB each (nginx unlimited; FILE_MIB may list several
#    sizes, one table each) through the agent that
#    holds COUNT added downloads, with no client, with CLIENTS clients following the event stream
#    (with live progress), and with those clients each also reading the summary and the first
#    page of the list once (what the web page reads); ROUNDS rounds in rotating order, medians.
#
# Needs: nginx, aria2c, curl, python3. Everything lives in a temporary directory, removed at the
# end; the agents, aria2c and nginx are stopped.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
BENCH=${BENCH:-$ROOT/.build/release/bench-agent}
COUNT=${COUNT:-10000}
LATENCY_COUNT=${LATENCY_COUNT:-1000}
CLIENTS=${CLIENTS:-100}
RUNNING=${RUNNING:-16}
FILE_MIB=${FILE_MIB:-32 256}
ROUNDS=${ROUNDS:-5}
for binary in "$FDL" "$BENCH"; do
    [ -x "$binary" ] || { echo "build first: swift build -c release --product fdl && swift build -c release --product bench-agent" >&2; exit 1; }
done
for tool in nginx aria2c curl python3; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done
ulimit -n 65536 2>/dev/null || ulimit -n 8192

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-bench-agent.XXXXXX)
agent_pid=""
aria_pid=""
stop_pid() { if [ -n "$1" ]; then kill -9 "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; fi; }
cleanup() {
    stop_pid "$agent_pid"
    stop_pid "$aria_pid"
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/www"
python3 - "$WORK/www" "$RUNNING" $FILE_MIB <<'EOF'
import os, sys
root, files, sizes = sys.argv[1], int(sys.argv[2]), [int(x) for x in sys.argv[3:]]
with open(os.path.join(root, "f.bin"), "wb") as f:
    f.write(os.urandom(1 << 20))
for mib in sizes:
    os.makedirs(os.path.join(root, "big%d" % mib), exist_ok=True)
    for i in range(files):
        with open(os.path.join(root, "big%d" % mib, str(i)), "wb") as f:
            for _ in range(mib):
                f.write(os.urandom(1 << 20))
EOF
# /slow/ serves f.bin at 1 KiB/s whatever the query string; /bigN/ the throughput files (N MiB) unlimited.
LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0 "location /slow/ { alias $WORK/www/; limit_rate 1k; }"
BASE="http://127.0.0.1:$port"
SLOW="$BASE/slow/f.bin?n="
: > "$WORK/results"
result() { echo "$*" >> "$WORK/results"; }
value() { awk -v key="$1" '{ for (i = 1; i < NF; i++) if ($i == key) print $(i + 1) }'; }
memory() { awk '/^VmRSS|^VmHWM/ { printf "%s ", $2 }' "/proc/$1/status"; }

# start_agent NAME MAX_CONCURRENT: a fresh agent in $WORK/NAME; sets $agent_pid and $socket.
start_agent() {
    local dir="$WORK/$1"
    mkdir -p "$dir/out"
    socket="$dir/run/agent.sock"
    "$FDL" agent --socket "$socket" --state "$dir/state" --downloads "$dir/out" --max-concurrent "$2" > "$dir/agent.log" 2>&1 &
    agent_pid=$!
    for _ in $(seq 1 300); do
        curl -sf --unix-socket "$socket" http://agent/v1/health > /dev/null 2>&1 && return 0
        sleep 0.1
    done
    echo "the agent did not start:" >&2; cat "$dir/agent.log" >&2; exit 1
}

# 1-3 through the agent: COUNT started in batches (4 at a time), its memory, then the latency.
start_agent started 4
result agent_empty "$(memory "$agent_pid")"
result agent_start_batch "$("$BENCH" submit "$socket" "$COUNT" "$SLOW" "$WORK/started/out" start batch | value seconds)"
read -r rss hwm <<< "$(memory "$agent_pid")"
result agent_rss "$rss" "$hwm"
result agent_latency "$("$BENCH" latency "$socket" "$LATENCY_COUNT" "$BASE/none" "$WORK/started/out")"
stop_pid "$agent_pid"; agent_pid=""
# the same COUNT started one request per download
start_agent singles 4
result agent_start "$("$BENCH" submit "$socket" "$COUNT" "$SLOW" "$WORK/singles/out" start | value seconds)"
stop_pid "$agent_pid"; agent_pid=""

# the same in-process
mkdir -p "$WORK/inprocess-start" "$WORK/inprocess-add" "$WORK/inprocess-latency"
result inprocess_start "$("$BENCH" inprocess "$COUNT" "$SLOW" "$WORK/inprocess-start" start | value seconds)"
result inprocess_add "$("$BENCH" inprocess "$COUNT" "$SLOW" "$WORK/inprocess-add" add | value seconds)"
result inprocess_latency "$("$BENCH" inprocess-latency "$LATENCY_COUNT" "$BASE/none" "$WORK/inprocess-latency")"

# aria2c --enable-rpc with the same COUNT URLs, 4 at a time
mkdir -p "$WORK/aria"
aria_port=$(free_port)
aria2c --enable-rpc --rpc-listen-port="$aria_port" --max-concurrent-downloads=4 --file-allocation=none \
    --quiet -d "$WORK/aria" > "$WORK/aria.log" 2>&1 &
aria_pid=$!
wait_for_port "$aria_port" "$WORK/aria.log"
result aria_empty "$(memory "$aria_pid")"
result aria_start "$(python3 - "$aria_port" "$COUNT" "$SLOW" <<'EOF'
import http.client, json, sys, threading, time
port, count, prefix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def lane(k):
    connection = http.client.HTTPConnection("127.0.0.1", port)
    for i in range(k, count, 8):
        body = json.dumps({"jsonrpc": "2.0", "id": str(i), "method": "aria2.addUri",
                           "params": [[prefix + str(i)], {"out": "d%d" % i}]})
        connection.request("POST", "/jsonrpc", body, {"Content-Type": "application/json"})
        answer = connection.getresponse().read()
        if b'"result"' not in answer:
            sys.exit("aria2.addUri: " + answer.decode())
began = time.monotonic()
lanes = [threading.Thread(target=lane, args=(k,)) for k in range(8)]
for t in lanes: t.start()
for t in lanes: t.join()
print("%.6f" % (time.monotonic() - began))
EOF
)"
read -r rss hwm <<< "$(memory "$aria_pid")"
result aria_rss "$rss" "$hwm"
stop_pid "$aria_pid"; aria_pid=""

# 4. throughput, with COUNT added (not started) downloads in the agent
start_agent added "$RUNNING"
result agent_add_batch "$("$BENCH" submit "$socket" "$COUNT" "$SLOW" "$WORK/added/out" add batch | value seconds)"
run=0
throughput() {   # NAME CLIENTS LISTS
    run=$((run + 1))
    result "tp_${mib}_$1" "$("$BENCH" throughput "$socket" "$BASE/big$mib/" "$RUNNING" "$((mib << 20))" "$2" "$3" "$WORK/added/out" "r$run" | value bytes_per_second)"
}
tp_none() { throughput none 0 0; }
tp_streams() { throughput streams "$CLIENTS" 0; }
tp_lists() { throughput lists "$CLIENTS" 1; }
for mib in $FILE_MIB; do
    for round in $(seq 1 "$ROUNDS"); do
        in_rotation "$round" tp_none tp_streams tp_lists
    done
done
stop_pid "$agent_pid"; agent_pid=""

python3 - "$WORK/results" "$COUNT" "$CLIENTS" "$RUNNING" "$ROUNDS" $FILE_MIB <<'EOF'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
count, clients, running, rounds = (int(x) for x in sys.argv[2:6])
sizes = [int(x) for x in sys.argv[6:]]
def get(name):
    return [r[1:] for r in rows if r[0] == name]
def one(name, i=0):
    return float(get(name)[0][i])
def lat(name):
    words = get(name)[0]
    return float(words[words.index("median") + 1]) * 1e3, float(words[words.index("p99") + 1]) * 1e3
print(f"| submitting {count:,} downloads | seconds | per download | ÷ in-process |")
print("|---|---|---|---|")
for name, label, base in [("agent_start_batch", "agent API, started, batches of 1,000 (`POST /v1/downloads` with an array)", "inprocess_start"),
                          ("agent_start", "agent API, started, one `POST /v1/downloads` each (8 at a time)", "inprocess_start"),
                          ("inprocess_start", "in-process `Downloader.start`", "inprocess_start"),
                          ("agent_add_batch", "agent API, `\"start\": false`, batches of 1,000", "inprocess_add"),
                          ("inprocess_add", "in-process `Downloader.add`", "inprocess_add"),
                          ("aria_start", "aria2c `aria2.addUri` (JSON-RPC over HTTP, 8 at a time)", "inprocess_start")]:
    print(f"| {label} | {one(name):.2f} | {one(name) / count * 1e6:.0f} µs | {one(name) / one(base):.1f} |")
print()
agent, local = lat("agent_latency"), lat("inprocess_latency")
print("| add → its event at the caller | median ms | p99 ms |")
print("|---|---|---|")
print(f"| through the agent (POST, then the server-sent event) | {agent[0]:.2f} | {agent[1]:.2f} |")
print(f"| in-process (`add`, then `events()`) | {local[0]:.3f} | {local[1]:.3f} |")
print(f"| ratio agent ÷ in-process | {agent[0] / local[0]:.1f} | {agent[1] / local[1]:.1f} |")
print()
a, r = [int(x) for x in get("agent_rss")[0]], [int(x) for x in get("aria_rss")[0]]
a0, r0 = int(get("agent_empty")[0][0]), int(get("aria_empty")[0][0])
print(f"| {count:,} queued downloads, 4 running | RSS MiB | peak RSS MiB | RSS with none, MiB | KiB per download above none |")
print("|---|---|---|---|---|")
print(f"| fdl agent | {a[0] / 1024:.0f} | {a[1] / 1024:.0f} | {a0 / 1024:.0f} | {(a[0] - a0) / count:.1f} |")
print(f"| aria2c --enable-rpc | {r[0] / 1024:.0f} | {r[1] / 1024:.0f} | {r0 / 1024:.0f} | {(r[0] - r0) / count:.1f} |")
print(f"| ratio fdl ÷ aria2c | {a[0] / r[0]:.2f} | {a[1] / r[1]:.2f} | {a0 / r0:.2f} | {(a[0] - a0) / (r[0] - r0):.2f} |")
for mib in sizes:
    def tp(name):
        return statistics.median(float(r[0]) for r in get(f"tp_{mib}_{name}"))
    base = tp("none")
    print()
    print(f"| {running} downloads × {mib} MiB, agent holding {count:,} queued (median of {rounds}) | MB/s | ÷ no clients |")
    print("|---|---|---|")
    for name, label in [("none", "no client"), ("streams", f"{clients} clients following the event stream (with progress)"),
                        ("lists", f"{clients} clients streaming, each reading the summary and the list's first page once")]:
        print(f"| {label} | {tp(name) / 1e6:.0f} | {tp(name) / base:.2f} |")
EOF
