#!/usr/bin/env bash
# The download agent's start over a large store (issue #16): `fdl agent` opens a store of COUNT
# finished downloads whose journal agrees with them (what a long-running agent accumulates) and
# compares the two, as it does at every start. Prints one Markdown row: seconds until it listens,
# seconds until its CPU time stops growing (the comparison is done), peak RSS, CPU seconds.
#
#   swift build -c release --product fdl && Benchmarks/agent-start.sh
#   COUNT=100000 FDL=/path/to/other/fdl Benchmarks/agent-start.sh     # another build, another size
#
# The store is made by the agent itself (one download added through its API, not started), then
# copied COUNT times in SQL with sqlite3 (state `completed`, journalled as such). Everything lives
# in a temporary directory (TMPDIR, default /tmp), removed at the end. Needs: curl, sqlite3.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
COUNT=${COUNT:-1000000}
[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl" >&2; exit 1; }
for tool in curl sqlite3; do
    command -v "$tool" >/dev/null || { echo "needs $tool (bash scripts/install-deps.sh --benchmarks)" >&2; exit 1; }
done

WORK=$(mktemp -d "${TMPDIR:-/tmp}/fdl-agent-start.XXXXXX")
AGENT=""
cleanup() {
    [ -n "$AGENT" ] && kill -TERM "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/state" "$WORK/downloads"
SOCKET=$WORK/agent.sock

# Starts the agent in the background and waits (at most 120 s) until it listens.
start_agent() {
    "$FDL" agent --socket "$SOCKET" --state "$WORK/state" --downloads "$WORK/downloads" >"$WORK/$1.log" 2>&1 &
    AGENT=$!
    for _ in $(seq 1 2400); do
        grep -q "listening on" "$WORK/$1.log" 2>/dev/null && return 0
        kill -0 "$AGENT" 2>/dev/null || { cat "$WORK/$1.log" >&2; exit 1; }
        sleep 0.05
    done
    echo "the agent did not listen within 120 s" >&2
    exit 1
}

stop_agent() {
    kill -TERM "$AGENT"
    wait "$AGENT" || true
    AGENT=""
}

start_agent seed
curl -sf --unix-socket "$SOCKET" -X POST http://agent/v1/downloads -H 'content-type: application/json' \
    -d '{"id":"seed","url":"http://127.0.0.1:9/seed","destination":"'"$WORK"'/downloads/seed","start":false}' >/dev/null
stop_agent

sqlite3 "$WORK/state/agent.sqlite" >/dev/null <<SQL
BEGIN;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $COUNT)
INSERT INTO downloads (id, url, destination, part_path, state, validator_kind, validator_value, validator_strong,
                       checkpointed_bytes, expected_length, options, queue_order, error_code, error_messages, attempts,
                       created_at, updated_at, segments, priority)
SELECT 'r' || i, url, destination || i, part_path || i, 'completed', validator_kind, validator_value, validator_strong,
       checkpointed_bytes, expected_length, options, queue_order + i, error_code, error_messages, attempts,
       created_at, updated_at, segments, priority
FROM downloads, n WHERE id = 'seed';
INSERT INTO journal_states (download_id, state) SELECT id, state FROM downloads WHERE id <> 'seed';
COMMIT;
SQL

begin=$(date +%s.%N)
start_agent run
listening=$(date +%s.%N)
# The comparison is done when the agent's CPU time stops growing for 2 s (at most 600 s).
last=-1 still=0
for _ in $(seq 1 1200); do
    sleep 0.5
    now=$(awk '{print $14 + $15}' "/proc/$AGENT/stat")
    if [ "$now" = "$last" ]; then still=$((still + 1)); else still=0; fi
    last=$now
    [ "$still" -ge 4 ] && break
done
idle=$(awk -v now="$(date +%s.%N)" -v begin="$begin" 'BEGIN { print now - begin - 2 }')
peak=$(awk '/VmHWM/ {print int($2 / 1024)}' "/proc/$AGENT/status")
cpu=$(awk '{printf "%.2f", ($14 + $15) / 100}' "/proc/$AGENT/stat")
curl -sf --unix-socket "$SOCKET" http://agent/v1/health | grep -q '"status":"ok"' || { echo "the agent did not answer" >&2; exit 1; }
stop_agent

echo "| fdl agent start, $COUNT finished downloads | listening after s | idle after s | peak RSS MiB | CPU s |"
echo "|---|---|---|---|---|"
printf '| %s | %.2f | %.2f | %s | %s |\n' "$FDL" "$(awk -v l="$listening" -v b="$begin" 'BEGIN { print l - b }')" "$idle" "$peak" "$cpu"
