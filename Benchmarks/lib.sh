# Sourced by the benchmark scripts: the loopback helpers of scripts/local-nginx.sh, and
#   in_rotation ROUND NAME...  -> runs the functions NAME... once each, starting at the ROUND-th,
#                                 so no tool always follows the same one (a row that waits for the
#                                 disk suffers when it comes right after a big write whose
#                                 writeback the virtual disk is still digesting).
#   start_shaping_proxy TARGET_PORT DELAY_MS RATE LOG
#                              -> a simulated WAN (Benchmarks/shaping_proxy.py) on 127.0.0.1 in
#                                 front of TARGET_PORT: DELAY_MS each way, RATE bytes/s per
#                                 connection; sets $proxy_port and $proxy_pid
#   stop_shaping_proxy
#   start_local_sshd WORKDIR   -> OpenSSH's sshd on a free 127.0.0.1 port that lets root in with a
#                                 throwaway key: WORKDIR/id_ed25519 (the client key),
#                                 WORKDIR/host_key(.pub), WORKDIR/known_hosts (the host key for
#                                 [127.0.0.1]:PORT); sets $sshd_port and $sshd_pid
#   trust_sshd_port PORT       -> adds the host key for [127.0.0.1]:PORT to WORKDIR/known_hosts too
#                                 (a proxy in front of sshd)
#   stop_local_sshd
#   timed_run FILE COMMAND...  -> runs COMMAND (bounded by $TOOL_TIMEOUT, output in $WORK/tool.log)
#                                 with $WORK/out emptied first; sets $run_elapsed (seconds, as
#                                 measured), $run_seconds (2 decimals) and $run_verdict: "ok", "WRONG
#                                 BYTES" when FILE's SHA-256 is not $expected, or "FAILED (exit N):
#                                 <last line>"; sets failed=1 unless ok
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/local-nginx.sh"

timed_run() {
    local file=$1; shift
    rm -rf "$WORK/out"; mkdir -p "$WORK/out"
    local start end status=0
    start=$(date +%s.%N)
    timeout "$TOOL_TIMEOUT" "$@" > "$WORK/tool.log" 2>&1 || status=$?
    end=$(date +%s.%N)
    run_elapsed=$(python3 -c "print($end - $start)")
    run_seconds=$(python3 -c "print(f'{$run_elapsed:.2f}')")
    if [ "$status" -ne 0 ]; then
        run_verdict="FAILED (exit $status): $(tail -1 "$WORK/tool.log")"; failed=1
    elif [ "$(sha256sum "$file" 2> /dev/null | cut -d' ' -f1)" != "$expected" ]; then
        run_verdict="WRONG BYTES"; failed=1
    else
        run_verdict="ok"
    fi
}

in_rotation() {
    local round=$1; shift
    local names=("$@") n=$# k
    for k in $(seq 0 $((n - 1))); do "${names[$(((k + round) % n))]}"; done
}

start_shaping_proxy() {
    local target=$1 delay=$2 rate=$3 log=$4
    : > "$log"   # there before the proxy writes to it: the loop below reads it at once
    python3 "$(dirname "${BASH_SOURCE[0]}")/shaping_proxy.py" --target "127.0.0.1:$target" \
        --delay-ms "$delay" --rate "$rate" > "$log" 2>&1 &
    proxy_pid=$!
    proxy_port=""
    for _ in $(seq 1 100); do
        proxy_port=$(awk '/^listening / { print $2 }' "$log")
        [ -n "$proxy_port" ] && return 0
        sleep 0.1
    done
    echo "the shaping proxy did not start:" >&2
    cat "$log" >&2
    return 1
}

stop_shaping_proxy() {
    if [ -n "${proxy_pid:-}" ]; then
        kill "$proxy_pid" 2>/dev/null || true
        wait "$proxy_pid" 2>/dev/null || true
        proxy_pid=""
    fi
}

start_local_sshd() {
    sshd_work=$1
    mkdir -p /run/sshd
    ssh-keygen -q -t ed25519 -N '' -f "$sshd_work/host_key"
    ssh-keygen -q -t ed25519 -N '' -f "$sshd_work/id_ed25519"
    cp "$sshd_work/id_ed25519.pub" "$sshd_work/authorized_keys"
    sshd_port="$(free_port)"
    : > "$sshd_work/known_hosts"
    trust_sshd_port "$sshd_port"
    cat > "$sshd_work/sshd_config" <<CONF
Port $sshd_port
ListenAddress 127.0.0.1
HostKey $sshd_work/host_key
PidFile $sshd_work/sshd.pid
AuthorizedKeysFile $sshd_work/authorized_keys
StrictModes no
PermitRootLogin yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
MaxStartups 100
MaxSessions 50
Subsystem sftp /usr/lib/openssh/sftp-server
CONF
    /usr/sbin/sshd -f "$sshd_work/sshd_config" -D -e 2>"$sshd_work/sshd.log" &
    sshd_pid=$!
    wait_for_port "$sshd_port" "$sshd_work/sshd.log"
}

trust_sshd_port() {
    echo "[127.0.0.1]:$1 $(cut -d' ' -f1,2 "$sshd_work/host_key.pub")" >> "$sshd_work/known_hosts"
}

stop_local_sshd() {
    if [ -n "${sshd_pid:-}" ]; then
        kill "$sshd_pid" 2>/dev/null || true
        wait "$sshd_pid" 2>/dev/null || true
        sshd_pid=""
    fi
}
