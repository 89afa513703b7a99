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
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/local-nginx.sh"

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
