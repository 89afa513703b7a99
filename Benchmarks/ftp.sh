#!/usr/bin/env bash
# FTP benchmark on loopback, side by side in one run: fdl get ftp:// on one and on CONNECTIONS
# connections beside `curl -o`, `wget -O` and `aria2c`, all fetching one file of SIZE_MIB random
# bytes from vsftpd (anonymous, passive mode) on 127.0.0.1. Prints a Markdown table.
#
#   swift build -c release --product fdl && Benchmarks/ftp.sh
#   SIZE_MIB=256 CONNECTIONS=8 Benchmarks/ftp.sh
#   FDL=.build/debug/fdl SIZE_MIB=2 Benchmarks/ftp.sh    # tiny (the suite)
#
# Rows: fdl get -x 1, fdl get -x CONNECTIONS (fdl splits only files of 16 MiB and more), curl -o,
# wget -O, aria2c -x1 (their defaults otherwise). Seconds = wall time of the process; MB/s =
# 10^6 bytes/s; ratio = curl's seconds / the row's seconds (above 1: faster than curl). Every run
# is bounded by `timeout TOOL_TIMEOUT` and its SHA-256 checked; a failed or wrong run is reported in
# its row and makes the script exit 1. A row whose tool is not installed says
# "skipped: TOOL not installed" (not a failure).
#
# Needs: vsftpd (run as root: it chroots), python3, sha256sum, timeout; curl, wget, aria2
# (scripts/install-deps.sh).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$ROOT/Benchmarks/lib.sh"
FDL=${FDL:-$ROOT/.build/release/fdl}
SIZE_MIB=${SIZE_MIB:-1024}
CONNECTIONS=${CONNECTIONS:-4}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-600}

[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl (or set FDL)" >&2; exit 1; }
for tool in /usr/sbin/vsftpd python3 sha256sum timeout; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done

WORK=$(mktemp -d /tmp/fdl-bench-ftp.XXXXXX)
vsftpd_pid=""
cleanup() {
    if [ -n "$vsftpd_pid" ]; then
        kill "$vsftpd_pid" 2> /dev/null || true
        wait "$vsftpd_pid" 2> /dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT
# vsftpd refuses a writable anonymous root; the configuration must be root's (it is: we run as root).
mkdir -p "$WORK/root" "$WORK/empty" "$WORK/out"
chmod 755 "$WORK" "$WORK/root"

# vsftpd_listens PID PORT: PID holds a listening socket on 127.0.0.1:PORT (not some other server).
vsftpd_listens() {
    python3 - "$1" "$2" <<'PY'
import os, sys
pid, port = sys.argv[1], int(sys.argv[2])
try:
    links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
except OSError:
    sys.exit(1)
inodes = {link[8:-1] for link in links if link.startswith("socket:[")}
for line in open("/proc/net/tcp").readlines()[1:]:
    fields = line.split()
    if fields[3] == "0A" and int(fields[1].split(":")[1], 16) == port and fields[9] in inodes:
        sys.exit(0)
sys.exit(1)
PY
}
# free_port only probes: another server may take the port before vsftpd binds it (vsftpd then
# exits, and a bare connect would reach that other server). So wait until vsftpd itself listens;
# if it exited, start it again on a new free port (5 tries, each bounded to 10 s).
for try in 1 2 3 4 5; do
    port=$(free_port)
    cat > "$WORK/vsftpd.conf" <<CONF
listen=YES
listen_ipv6=NO
listen_address=127.0.0.1
listen_port=$port
background=NO
anonymous_enable=YES
no_anon_password=YES
local_enable=NO
write_enable=NO
anon_root=$WORK/root
secure_chroot_dir=$WORK/empty
pasv_enable=YES
pasv_address=127.0.0.1
port_enable=YES
connect_from_port_20=NO
xferlog_enable=NO
vsftpd_log_file=$WORK/vsftpd.log
seccomp_sandbox=NO
max_per_ip=0
max_clients=0
CONF
    /usr/sbin/vsftpd "$WORK/vsftpd.conf" > "$WORK/vsftpd.err" 2>&1 &
    vsftpd_pid=$!
    for _ in $(seq 1 100); do
        vsftpd_listens "$vsftpd_pid" "$port" && break
        kill -0 "$vsftpd_pid" 2> /dev/null || break
        sleep 0.1
    done
    vsftpd_listens "$vsftpd_pid" "$port" && break
    if kill -0 "$vsftpd_pid" 2> /dev/null; then
        echo "vsftpd does not listen on 127.0.0.1:$port:" >&2; cat "$WORK/vsftpd.err" >&2; exit 1
    fi
    wait "$vsftpd_pid" 2> /dev/null || true
    vsftpd_pid=""
    echo "vsftpd exited (try $try, port $port): $(tail -1 "$WORK/vsftpd.err")" >&2
    [ "$try" -lt 5 ] || { echo "vsftpd did not start in 5 tries" >&2; exit 1; }
done

head -c $((SIZE_MIB * 1024 * 1024)) /dev/urandom > "$WORK/root/big.bin"
expected=$(sha256sum "$WORK/root/big.bin" | cut -d' ' -f1)
url="ftp://127.0.0.1:$port/big.bin"

failed=0
: > "$WORK/results"
# run NAME FILE COMMAND...: runs the command with an empty out folder, records seconds and verdict.
run() {
    local name=$1; shift
    timed_run "$@"
    echo "$name|$run_seconds|$run_verdict" >> "$WORK/results"
    echo "  $name: ${run_seconds}s, $run_verdict" >&2
}
# optional TOOL NAME FILE COMMAND...: run, or a skipped row when TOOL is not installed.
optional() {
    local tool=$1 name=$2; shift 2
    if command -v "$tool" > /dev/null; then
        run "$name" "$@"
    else
        echo "$name|-|skipped: $tool not installed" >> "$WORK/results"
    fi
}

run "fdl get -x 1" "$WORK/out/big.bin" "$FDL" get "$url" -d "$WORK/out" --state "$WORK/state1" -x 1 --json
run "fdl get -x $CONNECTIONS" "$WORK/out/big.bin" "$FDL" get "$url" -d "$WORK/out" --state "$WORK/state2" -x "$CONNECTIONS" --json
optional curl "curl -o" "$WORK/out/big.bin" curl -sS -o "$WORK/out/big.bin" "$url"
optional wget "wget -O" "$WORK/out/big.bin" wget -q -O "$WORK/out/big.bin" "$url"
optional aria2c "aria2c -x1" "$WORK/out/big.bin" aria2c -q -x1 --allow-overwrite=true --file-allocation=none \
    -d "$WORK/out" -o big.bin "$url"

python3 - "$WORK/results" "$SIZE_MIB" <<'PY'
import sys
rows = [line.rstrip("\n").split("|", 2) for line in open(sys.argv[1])]
size_mib = int(sys.argv[2])
curl = next((float(s) for name, s, v in rows if name == "curl -o" and v == "ok"), None)
print("| file | tool | seconds | MB/s | ratio vs curl | bytes |")
print("|---|---|---|---|---|---|")
for name, seconds, verdict in rows:
    if seconds == "-":
        print(f"| {size_mib} MiB | {name} | - | - | - | {verdict} |")
        continue
    s = float(seconds)
    rate = f"{size_mib * 1048576 / s / 1e6:.0f}" if s > 0 else "-"
    ratio = f"{curl / s:.2f}" if curl and s > 0 else "-"
    print(f"| {size_mib} MiB | {name} | {seconds} | {rate} | {ratio} | {verdict} |")
PY
exit "$failed"
