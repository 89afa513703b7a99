#!/usr/bin/env bash
# SFTP benchmark on loopback, side by side in one run (figures swing between runs on this VM:
# compare the ratios, not the absolute numbers).
#
#   Benchmarks/sftp.sh [ROUNDS]      (default 3 rounds; each tool's best round is reported)
#   BENCH=.build/debug/bench-sftp BIG_MIB=2 SMALL_COUNT=10 Benchmarks/sftp.sh 1   # tiny (the suite)
#
# BENCH: the bench-sftp to run (default: a release build made here); BIG_MIB (1024): the big file;
# SMALL_COUNT (500): the 64 KiB files. Every downloaded file is compared with its source.
#
# Starts OpenSSH's sshd on a free 127.0.0.1 port with throwaway keys, then compares:
#   1. one 1 GiB file:   bench-sftp (Downloader + SFTPTransport)  vs  OpenSSH sftp  vs  curl sftp://
#   2. 500 files of 64 KiB: bench-sftp at 8 at a time  vs  one OpenSSH sftp batch (one session)
# bench-sftp runs twice per case: through the Downloader (staging file, fsync of file and folder,
# rename: what an app gets) and "raw" (SFTPTransport into a TransferSink: the transport's own cost).
# Needs: openssh-server, openssh-client, curl (built with libssh2, as Debian's is), python3.
# The tools run in an order that rotates from round to round.
set -euo pipefail
cd "$(dirname "$0")/.."
. Benchmarks/lib.sh
rounds="${1:-3}"

big_mib="${BIG_MIB:-1024}"
small_count="${SMALL_COUNT:-500}"
if [ -n "${BENCH:-}" ]; then
    bench="$BENCH"
else
    swift build -c release --product bench-sftp >/dev/null
    bench="$(swift build -c release --show-bin-path)/bench-sftp"
fi

work="$(mktemp -d /tmp/fdl-bench-sftp.XXXXXX)"
cleanup() {
    stop_local_sshd
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/data/small" "$work/out"
chmod 755 "$work" "$work/data"

start_local_sshd "$work"
port="$sshd_port"

echo "creating $big_mib MiB + $small_count x 64 KiB of random data in $work/data"
head -c $((big_mib * 1024 * 1024)) /dev/urandom > "$work/data/big.bin"
for i in $(seq 1 "$small_count"); do head -c 65536 /dev/urandom > "$work/data/small/f$i.bin"; done
: > "$work/small.list"; : > "$work/small.batch"
for i in $(seq 1 "$small_count"); do
    echo "sftp://root@127.0.0.1:$port$work/data/small/f$i.bin" >> "$work/small.list"
    echo "get $work/data/small/f$i.bin $work/out/" >> "$work/small.batch"
done
echo "get $work/data/big.bin $work/out/big.bin" > "$work/big.batch"
hostsha="$(ssh-keygen -l -E sha256 -f "$work/host_key.pub" | awk '{print $2}' | sed 's/^SHA256://')"
ssh_opts=(-q -i "$work/id_ed25519" -o "UserKnownHostsFile=$work/known_hosts" -o StrictHostKeyChecking=yes -o BatchMode=yes -P "$port")
expected="$(sha256sum "$work/data/big.bin" | cut -d' ' -f1)"

now() { date +%s.%N; }
# run NAME COMMAND...: runs the command with an empty out folder, prints and records its seconds.
declare -A best
run() {
    local name="$1"; shift
    rm -rf "$work/out"; mkdir -p "$work/out"; sync
    local start end
    start="$(now)"
    "$@" >/dev/null
    end="$(now)"
    local seconds
    seconds="$(python3 -c "print(f'{$end - $start:.3f}')")"
    if [ -z "${best[$name]:-}" ] || python3 -c "import sys; sys.exit(0 if $seconds < ${best[$name]} else 1)"; then
        best[$name]="$seconds"
    fi
    echo "  $name: ${seconds}s"
}
check_big() {
    local got; got="$(sha256sum "$1" | cut -d' ' -f1)"
    [ "$got" = "$expected" ] || { echo "wrong bytes in $1"; exit 1; }
}

# The tools of each case run in an order that rotates from round to round (see in_rotation).
bench_args=(--known-hosts "$work/known_hosts" --identity "$work/id_ed25519")
big_url="sftp://root@127.0.0.1:$port$work/data/big.bin"
big_fdl() { run "bench-sftp big" "$bench" "${bench_args[@]}" --concurrency 1 --out "$work/out" "$big_url"; check_big "$work/out/0-big.bin"; }
big_raw() { run "bench-sftp-raw big" "$bench" --raw "${bench_args[@]}" --concurrency 1 --out "$work/out" "$big_url"; check_big "$work/out/0-big.bin"; }
big_sftp() { run "openssh-sftp big" sftp "${ssh_opts[@]}" -b "$work/big.batch" root@127.0.0.1; check_big "$work/out/big.bin"; }
big_curl() {
    run "curl-sftp big" curl -sS --key "$work/id_ed25519" --pubkey "$work/id_ed25519.pub" --hostpubsha256 "$hostsha" \
        -o "$work/out/big.bin" "$big_url"
    check_big "$work/out/big.bin"
}
check_small() {   # every file there, byte-exact (bench-sftp names them INDEX-NAME)
    [ "$(ls "$work/out" | wc -l)" = "$small_count" ] || { echo "$1 did not write $small_count files"; exit 1; }
    local name
    for name in $(ls "$work/out"); do
        cmp -s "$work/out/$name" "$work/data/small/${name#*-}" || { echo "$1: wrong bytes in $name"; exit 1; }
    done
}
small_fdl() { run "bench-sftp small" "$bench" "${bench_args[@]}" --concurrency 8 --out "$work/out" --list "$work/small.list"; check_small bench-sftp; }
small_raw() { run "bench-sftp-raw small" "$bench" --raw "${bench_args[@]}" --concurrency 8 --out "$work/out" --list "$work/small.list"; check_small "bench-sftp --raw"; }
small_sftp() { run "openssh-sftp small" sftp "${ssh_opts[@]}" -b "$work/small.batch" root@127.0.0.1; check_small sftp; }

for round in $(seq 1 "$rounds"); do
    echo "round $round: one $big_mib MiB file"
    in_rotation "$round" big_fdl big_raw big_sftp big_curl
    echo "round $round: $small_count files of 64 KiB"
    in_rotation "$round" small_fdl small_raw small_sftp
done

mb() { python3 -c "print(f'{$1 / $2 / 1e6:.0f}')"; }
ratio() { python3 -c "print(f'{$1 / $2:.2f}')"; }
big=$((big_mib * 1024 * 1024)); small=$((small_count * 65536))
echo
echo "best of $rounds rounds (MB/s = 10^6 bytes/s); ratio = the other tool's time / bench-sftp's time (above 1: bench-sftp faster)"
echo "| case | tool | seconds | MB/s | ratio vs bench-sftp (Downloader) | ratio vs bench-sftp --raw |"
echo "|---|---|---|---|---|---|"
for tool in bench-sftp bench-sftp-raw openssh-sftp curl-sftp; do
    s="${best[$tool big]}"
    echo "| $big_mib MiB file | $tool | $s | $(mb $big "$s") | $(ratio "$s" "${best[bench-sftp big]}") | $(ratio "$s" "${best[bench-sftp-raw big]}") |"
done
for tool in bench-sftp bench-sftp-raw openssh-sftp; do
    s="${best[$tool small]}"
    echo "| $small_count x 64 KiB | $tool | $s | $(mb $small "$s") | $(ratio "$s" "${best[bench-sftp small]}") | $(ratio "$s" "${best[bench-sftp-raw small]}") |"
done
