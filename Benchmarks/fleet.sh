#!/usr/bin/env bash
# Fleet benchmark: the shared queue in PostgreSQL (docs/fleet.md) on this machine. Prints
# Markdown tables.
#
#   swift build -c release --product fdl && Benchmarks/fleet.sh
#
# 1. Claims per second: CLAIM_ROWS queued rows (the schema fdl creates), claimed one at a time by
#    1, 4 and 16 concurrent sessions for CLAIM_SECONDS each (pgbench running fdl's claim statement,
#    the one FleetWorker sends: FOR UPDATE SKIP LOCKED inside an UPDATE that sets the lease).
# 2. FILES small files (1-4 KiB) from nginx on 127.0.0.1, queued with `fdl add --postgres -i`, then
#    downloaded by 1 and by 4 `fdl worker` processes (-j 16 each, one shared directory); wall time
#    from the workers' start to the last completed row. A failed row, a worker that exits, or
#    RUN_SECONDS without all rows completed stops the benchmark with the workers' logs.
#
# PostgreSQL (Debian's postgresql package) runs as the postgres user from a cluster made by initdb
# in a temporary directory (fsync off: the queue's statements are measured, not this disk).
# Needs: nginx, postgresql, python3. Everything is removed at the end.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
FILES=${FILES:-20000}
CLAIM_ROWS=${CLAIM_ROWS:-200000}
CLAIM_SECONDS=${CLAIM_SECONDS:-10}
PG_START_SECONDS=${PG_START_SECONDS:-60}
RUN_SECONDS=${RUN_SECONDS:-900}
[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl" >&2; exit 1; }
PGBIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -n "$PGBIN" ] || { echo "missing postgresql: bash scripts/install-deps.sh" >&2; exit 1; }
command -v nginx > /dev/null || { echo "missing nginx: bash scripts/install-deps.sh" >&2; exit 1; }
ulimit -n 65536 2>/dev/null || ulimit -n 8192

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-bench-fleet.XXXXXX)
chmod 755 "$WORK"
PGDIR="$WORK/pg"
pg_pid=""
worker_pids=()
as_postgres() { if [ "$(id -u)" -eq 0 ]; then setpriv --reuid=postgres --regid=postgres --clear-groups -- "$@"; else "$@"; fi; }
cleanup() {
    for pid in "${worker_pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    # $pg_pid is the subshell that runs as_postgres; the server's own pid is in postmaster.pid.
    if [ -n "$pg_pid" ]; then
        [ -f "$PGDIR/data/postmaster.pid" ] && kill -INT "$(head -n 1 "$PGDIR/data/postmaster.pid")" 2>/dev/null || true
        wait "$pg_pid" 2>/dev/null || true
    fi
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$PGDIR"
[ "$(id -u)" -eq 0 ] && chown postgres:postgres "$PGDIR"
export PGPASSWORD=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
echo "$PGPASSWORD" > "$PGDIR/pw"
[ "$(id -u)" -eq 0 ] && chown postgres "$PGDIR/pw"
as_postgres "$PGBIN/initdb" -D "$PGDIR/data" -U fdl --auth=scram-sha-256 --pwfile="$PGDIR/pw" -E UTF8 --locale=C \
    --no-sync --no-instructions > "$WORK/initdb.log"
PGPORT=$(free_port)
as_postgres "$PGBIN/postgres" -D "$PGDIR/data" -p "$PGPORT" -k "$PGDIR" -c listen_addresses=127.0.0.1 \
    -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200 \
    2> "$WORK/postgres.log" &
pg_pid=$!
# PostgreSQL up within PG_START_SECONDS, or the benchmark stops with its log.
deadline=$(( $(date +%s) + PG_START_SECONDS ))
until "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U fdl -d postgres -Atc "SELECT 1" > /dev/null 2>&1; do
    if ! kill -0 "$pg_pid" 2>/dev/null || [ "$(date +%s)" -ge "$deadline" ]; then
        echo "postgres did not start (within ${PG_START_SECONDS} s):" >&2; cat "$WORK/postgres.log" >&2; exit 1
    fi
    sleep 0.1
done
QUEUE="postgres://fdl@127.0.0.1:$PGPORT/postgres"
psql_() { "$PGBIN/psql" -h 127.0.0.1 -p "$PGPORT" -U fdl -d postgres -v ON_ERROR_STOP=1 -Atc "$1"; }

echo "# Fleet benchmark ($(nproc) cores, PostgreSQL $("$PGBIN/postgres" --version | awk '{print $3}'), $(date -u +%Y-%m-%d))"
echo
# The schema, exactly as fdl makes it.
"$FDL" add --postgres "$QUEUE" -o warmup --id warmup http://127.0.0.1:9/warmup > /dev/null

echo "## Claims per second ($CLAIM_ROWS queued rows, one claim = one row, ${CLAIM_SECONDS} s each)"
echo
echo "| concurrent claimers | claims/s |"
echo "|---:|---:|"
# A copy of the claim statement in Sources/FileDownloadPostgres/Queue/PostgresDownloadQueue+Lease.swift
# (PostgresDownloadQueue.claim, which `fdl worker` sends), with its binds written out: the owner
# 'bench-<pgbench client>', a 30 s lease, LIMIT 1. Keep the two alike when the claim changes.
cat > "$WORK/claim.sql" <<'SQL'
UPDATE downloads d SET state = 'claimed', lease_owner = 'bench-' || :client_id,
       lease_expires_at = now() + make_interval(secs => 30), claims = d.claims + 1, updated_at = now()
FROM (SELECT id FROM downloads
      WHERE state IN ('queued', 'claimed') AND (lease_expires_at IS NULL OR lease_expires_at <= now())
      ORDER BY priority DESC, queue_order LIMIT 1 FOR UPDATE SKIP LOCKED) c
WHERE d.id = c.id
RETURNING d.id, d.claims, d.destination, d.record::text, d.node, d.staging_path, d.staging_shared;
SQL
for clients in 1 4 16; do
    psql_ "TRUNCATE downloads; INSERT INTO downloads (id, url, destination, record)
           SELECT 'f' || i, 'http://127.0.0.1/f' || i, 'f' || i, '{}'::jsonb FROM generate_series(1, $CLAIM_ROWS) i" > /dev/null
    psql_ "VACUUM ANALYZE downloads" > /dev/null
    tps=$("$PGBIN/pgbench" -h 127.0.0.1 -p "$PGPORT" -U fdl -n -c "$clients" -j "$(( clients < 2 ? 1 : 2 ))" \
        -T "$CLAIM_SECONDS" -f "$WORK/claim.sql" postgres 2>/dev/null | awk '/^tps/ {print int($3)}')
    echo "| $clients | $tps |"
done
echo

echo "## $FILES small files, 1 vs 4 worker processes (-j 16 each)"
echo
mkdir -p "$WORK/www/files" "$WORK/logs"
python3 - "$WORK/www/files" "$FILES" <<'PY'
import os, sys
d, n = sys.argv[1], int(sys.argv[2])
for i in range(n):
    with open(os.path.join(d, "f%05d.bin" % i), "wb") as f:
        f.write(os.urandom(1024 + (i * 37) % 3072))
PY
LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0
for i in $(seq 0 $((FILES - 1))); do printf 'http://127.0.0.1:%s/files/f%05d.bin\n' "$port" "$i"; done > "$WORK/list.txt"
echo "| workers | seconds | files/s |"
echo "|---:|---:|---:|"
for workers in 1 4; do
    psql_ "TRUNCATE downloads" > /dev/null
    rm -rf "$WORK/out"
    "$FDL" add --postgres "$QUEUE" -i "$WORK/list.txt" > /dev/null
    start=$(date +%s.%N)
    worker_pids=()
    for w in $(seq 1 "$workers"); do
        "$FDL" worker --postgres "$QUEUE" -d "$WORK/out" --shared-dir -j 16 --poll 0.2 --node "w$w" \
            > "$WORK/worker$w.log" 2>&1 &
        worker_pids+=($!)
    done
    # Until every row completed; stops when a row failed, a worker died, or after RUN_SECONDS.
    deadline=$(( $(date +%s) + RUN_SECONDS ))
    while :; do
        read -r done failed < <(psql_ "SELECT count(*) FILTER (WHERE state = 'completed'), count(*) FILTER (WHERE state = 'failed')
                                       FROM downloads" | tr '|' ' ')
        [ "$done" -ge "$FILES" ] && break
        problem=""
        [ "$failed" -eq 0 ] || problem="$failed downloads failed"
        for pid in "${worker_pids[@]}"; do kill -0 "$pid" 2>/dev/null || problem="worker $pid exited"; done
        [ "$(date +%s)" -lt "$deadline" ] || problem="only $done of $FILES completed within ${RUN_SECONDS} s"
        if [ -n "$problem" ]; then
            echo "$problem (logs follow)" >&2; tail -n 20 "$WORK"/worker*.log >&2; exit 1
        fi
        sleep 0.2
    done
    end=$(date +%s.%N)
    for pid in "${worker_pids[@]}"; do
        kill -TERM "$pid"
        for _ in $(seq 50); do kill -0 "$pid" 2> /dev/null || break; sleep 0.2; done  # at most 10 s
        kill -KILL "$pid" 2> /dev/null || true
        wait "$pid" || true
    done
    worker_pids=()
    [ "$(find "$WORK/out" -type f | wc -l)" -eq "$FILES" ] || { echo "wrong number of files" >&2; exit 1; }
    python3 -c "import sys; s=float(sys.argv[2])-float(sys.argv[1]); print('| $workers | %.1f | %.0f |' % (s, $FILES/s))" "$start" "$end"
done
