#!/usr/bin/env bash
# Segmented downloads on a simulated WAN (issue #14), side by side in one run. Prints Markdown
# tables with ratios.
#
#   swift build -c release --product fdl && Benchmarks/segments.sh
#   ROUNDS=3 Benchmarks/segments.sh                     # medians of 3 rounds, tools in rotating order
#   CASES="http sftp" DELAY_MS=50 RATE=5000000 Benchmarks/segments.sh
#   CASES=http HTTP_ROWS="h_fdl h_fdl4 h_lftp h_fdlauto h_fdlauto2" SIZE_MIB=64 Benchmarks/segments.sh
#
# N = CONNECTIONS (8):
# 1. HTTP: one SIZE_MIB (512) MiB file from nginx through Benchmarks/shaping_proxy.py (DELAY_MS
#    each way, RATE bytes/s per connection): fdl get -x N and -x 1, aria2c -xN -sN, axel -n N,
#    lftp pget -n N, rclone's multi-thread download (N streams), curl (one connection), and N curls
#    with a range each at once: what the proxy lets through (its ceiling); fdl get -x 4, and fdl's
#    automatic connections twice: a first download to the host (an empty state directory) and a
#    second one (a state directory that a download of the same file under another name from the
#    same host filled once, copied afresh before each run: it starts at the remembered count, the
#    most connections a window of that first download measured to scale; a file that ends before
#    its last doubling is measured, 64 MiB here, leaves the count before it).
#    HTTP_ROWS picks rows (the functions h_* below; default all).
# 2. SFTP: the same file through a second proxy in front of sshd: fdl get -x N and -x 1,
#    lftp pget -n N sftp://, rclone sftp with N multi-thread streams, OpenSSH sftp (batch get),
#    and N curls with a range each of sftp://, through the proxy and straight to sshd (what SSH's
#    encryption on this machine allows).
# 3. Loopback, no proxy: a LOOPBACK_MIB (1024) MiB file over HTTP, fdl -x CONNECTIONS against
#    fdl -x 1 (curl for reference).
# Each tool run: wall time (nanosecond clock), peak RSS and CPU (/usr/bin/time), the proxy's CPU
# (/proc), and the SHA-256 of what it wrote against the served file. Every run is bounded by
# `timeout TOOL_TIMEOUT` (300 s); a failed or wrong run is reported in its row and makes the
# script exit 1 after the tables.
#
# rclone 1.60 downloads over several connections only in `copy`/`copyto` from a remote to the
# local disk (`copyurl` is one GET); each stream gets at least half of --multi-thread-cutoff, so
# the cutoff is set to 2 x SIZE_MIB / N (64 MiB for 8 streams of 512 MiB). --sftp-disable-hashcheck:
# rclone would otherwise run md5sum on the server after the copy, which no other tool here does.
#
# Needs: nginx, curl, aria2c, OpenSSH (sshd, sftp, ssh-keygen), python3, /usr/bin/time
# (bash scripts/install-deps.sh); axel, lftp, rclone (bash scripts/install-deps.sh --benchmarks) are
# optional: without one, its rows say "skipped: TOOL not installed" (not a failure).
# The test suite runs it tiny (BenchmarkScriptTests/segments): SIZE_MIB=4 LOOPBACK_MIB=4 DELAY_MS=2
# CONNECTIONS=4 TOOL_TIMEOUT=60 Benchmarks/segments.sh
# Everything lives in a temporary directory removed at the end; nginx, sshd and the proxies stop.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
FDL=${FDL:-$ROOT/.build/release/fdl}
DELAY_MS=${DELAY_MS:-20}
RATE=${RATE:-20000000}
CONNECTIONS=${CONNECTIONS:-8}
SIZE_MIB=${SIZE_MIB:-512}
LOOPBACK_MIB=${LOOPBACK_MIB:-1024}
ROUNDS=${ROUNDS:-1}
CASES=${CASES:-http sftp loopback}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-300}
wants() { case " $CASES " in *" $1 "*) return 0;; esac; return 1; }

[ -x "$FDL" ] || { echo "build first: swift build -c release --product fdl" >&2; exit 1; }
for tool in nginx curl aria2c sftp ssh-keygen /usr/sbin/sshd python3 /usr/bin/time sha256sum timeout; do
    command -v "$tool" > /dev/null || { echo "missing $tool: bash scripts/install-deps.sh" >&2; exit 1; }
done
# Optional peers: a row whose tool is missing says "skipped: TOOL not installed" and the rest runs.
OPTIONAL_TOOLS="axel lftp rclone"
for tool in $OPTIONAL_TOOLS; do
    command -v "$tool" > /dev/null || echo "missing $tool (bash scripts/install-deps.sh --benchmarks): its rows are skipped" >&2
done
# Segmented downloads (`fdl get -x N`) are new: without them the fdl row is one connection.
# (The help is read whole first: `grep -q` closing the pipe early would fail the pipeline.)
fdl_help=$("$FDL" get --help 2>&1 || true)
if grep -qE -- '--max-connections([^-]|$)' <<< "$fdl_help"; then segmented=1; else segmented=0; fi

. "$ROOT/Benchmarks/lib.sh"
WORK=$(mktemp -d /tmp/fdl-bench-segments.XXXXXX)
cleanup() {
    stop_shaping_proxy
    stop_local_sshd
    stop_local_nginx
    rm -rf "$WORK"
}
trap cleanup EXIT
chmod 755 "$WORK"
mkdir -p "$WORK/www" "$WORK/out"
echo "making ${SIZE_MIB} MiB$(wants loopback && echo " and ${LOOPBACK_MIB} MiB") of random data in $WORK/www" >&2
head -c $((SIZE_MIB << 20)) /dev/urandom > "$WORK/www/big.bin"
wants loopback && head -c $((LOOPBACK_MIB << 20)) /dev/urandom > "$WORK/www/huge.bin"
big_sha=$(sha256sum "$WORK/www/big.bin" | cut -d' ' -f1)
huge_sha=""
started="$(date -u '+%d %b %Y %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg) at the start"
wants loopback && huge_sha=$(sha256sum "$WORK/www/huge.bin" | cut -d' ' -f1)
: > "$WORK/rclone.conf"
: > "$WORK/results"
failed=0

# proxy_ticks: CPU ticks of the shaping proxy and its workers so far (0 without a proxy).
proxy_ticks() {
    local pid total=0
    [ -n "${proxy_pid:-}" ] || { echo 0; return; }
    for pid in "$proxy_pid" $(pgrep -P "$proxy_pid" || true); do
        total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}
CLOCK_TICKS=$(getconf CLK_TCK)

# measure CASE NAME CONNECTIONS FILE SHA COMMAND...: runs COMMAND with an empty $WORK/out, bounded
# by TOOL_TIMEOUT, checks the SHA-256 of FILE(s) (several files are hashed in order, joined:
# ranges), and appends "CASE|NAME|CONNECTIONS|wall|rss_kib|user|sys|proxy_cpu|status" to results.
measure() {
    local case=$1 name=$2 conns=$3 file=$4 sha=$5; shift 5
    case " $OPTIONAL_TOOLS " in
        *" $1 "*) if ! command -v "$1" > /dev/null; then
            echo "  $case: $name: skipped, $1 not installed" >&2
            echo "$case|$name|$conns|-|-|-|-|-|skipped: $1 not installed" >> "$WORK/results"
            return 0
        fi;;
    esac
    rm -rf "$WORK/out"; mkdir -p "$WORK/out"; sync
    echo "  $case: $name" >&2
    local ticks0 start end ticks1 rss=0 user=0 sys=0 status=ok code=0
    ticks0=$(proxy_ticks)
    start=$(date +%s%N)
    /usr/bin/time -f "%M %U %S" -o "$WORK/time" timeout "$TOOL_TIMEOUT" "$@" > "$WORK/cmd.log" 2>&1 || code=$?
    end=$(date +%s%N)
    ticks1=$(proxy_ticks)
    if [ "$code" = 124 ]; then status="timed out after ${TOOL_TIMEOUT} s"
    elif [ "$code" != 0 ]; then status="failed (exit $code)"
    else
        # shellcheck disable=SC2086  # FILE may name several parts, in order
        [ "$(cat $file 2>/dev/null | sha256sum | cut -d' ' -f1)" = "$sha" ] || status="WRONG BYTES"
    fi
    if [ "$status" != ok ]; then
        failed=1
        echo "  $name: $status" >&2; tail -5 "$WORK/cmd.log" >&2
    fi
    read -r rss user sys < <(tail -1 "$WORK/time")
    echo "$case|$name|$conns|$(((end - start) / 1000000))|$rss|$user|$sys|$(((ticks1 - ticks0) * 100 / CLOCK_TICKS))|$status" >> "$WORK/results"
}

# ranges URL N: writes $WORK/ranges.sh, which runs N curls at once, each one range of 1/N of the
# big file into out/partK (curl takes -r for sftp:// too): what N connections get through the
# proxy, its ceiling. (A script, as timeout and /usr/bin/time run commands, not functions.)
ranges() {
    local url=$1 n=$2 size=$((SIZE_MIB << 20)) i
    {
        echo 'code=0; pids=()'
        for i in $(seq 0 $((n - 1))); do
            printf 'curl -sS'; printf ' %q' "${curl_ssh[@]}" -r "$((size * i / n))-$((size * (i + 1) / n - 1))" -o "$WORK/out/part$i" "$url"
            echo ' & pids+=($!)'
        done
        echo 'for p in "${pids[@]}"; do wait "$p" || code=$?; done; exit "$code"'
    } > "$WORK/ranges.sh"
}
parts() { local i; for i in $(seq 0 $((CONNECTIONS - 1))); do printf '%s ' "$WORK/out/part$i"; done; }

fdl_x() { if [ "$segmented" = 1 ]; then echo "-x $1"; fi; }
fdl_label() { if [ "$segmented" = 1 ]; then echo "fdl get -x $1"; else echo "fdl get (one connection: no -x in this build)"; fi; }
fdl_conns() { if [ "$segmented" = 1 ]; then echo "$1"; else echo 1; fi; }
curl_ssh=()
# rclone gives each stream at least half of --multi-thread-cutoff: 2 x the file / CONNECTIONS.
rclone_cutoff="$((2 * SIZE_MIB / CONNECTIONS))Mi"
# run_rounds LABEL NAME...: ROUNDS rounds of the functions NAME..., in rotating order.
run_rounds() {
    local label=$1 round; shift
    for round in $(seq 1 "$ROUNDS"); do
        echo "round $round: $label" >&2
        in_rotation "$round" "$@"
    done
}
# if_segmented NAME: NAME when fdl has -x (the one-connection row of fdl is then a row of its own).
if_segmented() { if [ "$segmented" = 1 ]; then echo "$1"; fi; }

# 1) HTTP through the proxy
if wants http; then
    LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0
    start_shaping_proxy "$port" "$DELAY_MS" "$RATE" "$WORK/proxy.log"
    url="http://127.0.0.1:$proxy_port/big.bin"
    out="$WORK/out/big.bin"
    # shellcheck disable=SC2046  # fdl_x is empty or two words
    h_fdl() { measure http "$(fdl_label "$CONNECTIONS")" "$(fdl_conns "$CONNECTIONS")" "$out" "$big_sha" "$FDL" get -q $(fdl_x "$CONNECTIONS") -d "$WORK/out" "$url"; }
    h_fdlauto() { measure http "fdl get (automatic connections)" auto "$out" "$big_sha" "$FDL" get -q -d "$WORK/out" "$url"; }
    h_fdl1() { measure http "fdl get -x 1" 1 "$out" "$big_sha" "$FDL" get -q -x 1 -d "$WORK/out" "$url"; }
    h_fdl4() { measure http "fdl get -x 4" 4 "$out" "$big_sha" "$FDL" get -q -x 4 -d "$WORK/out" "$url"; }
    # The second download to the host: fdl's state as one download of the same file under another
    # name (prime.bin) left it, copied afresh before each run (the copy is timed: a few ms).
    h_fdlauto2() {
        if [ ! -d "$WORK/primed-state" ]; then
            ln -sf big.bin "$WORK/www/prime.bin"
            timeout "$TOOL_TIMEOUT" "$FDL" get -q --state "$WORK/primed-state" -d "$WORK/prime" "http://127.0.0.1:$proxy_port/prime.bin"
            rm -rf "$WORK/prime"
        fi
        printf 'rm -rf %q && cp -r %q %q && exec %q get -q --state %q -d %q %q\n' "$WORK/state2" "$WORK/primed-state" \
            "$WORK/state2" "$FDL" "$WORK/state2" "$WORK/out" "$url" > "$WORK/auto2.sh"
        measure http "fdl get (automatic, second download to the host)" auto "$out" "$big_sha" bash "$WORK/auto2.sh"
    }
    h_aria() { measure http "aria2c -x$CONNECTIONS -s$CONNECTIONS" "$CONNECTIONS" "$out" "$big_sha" aria2c -q -x"$CONNECTIONS" -s"$CONNECTIONS" --file-allocation=none -d "$WORK/out" -o big.bin "$url"; }
    h_axel() { measure http "axel -n $CONNECTIONS" "$CONNECTIONS" "$out" "$big_sha" axel -q -n "$CONNECTIONS" -o "$out" "$url"; }
    h_lftp() { measure http "lftp pget -n $CONNECTIONS" "$CONNECTIONS" "$out" "$big_sha" lftp -c "pget -n $CONNECTIONS '$url' -o '$out'"; }
    h_rclone() {
        measure http "rclone copyto :http: --multi-thread-streams $CONNECTIONS" "$CONNECTIONS" "$out" "$big_sha" rclone --config "$WORK/rclone.conf" \
            copyto --multi-thread-streams "$CONNECTIONS" --multi-thread-cutoff "$rclone_cutoff" --http-url "http://127.0.0.1:$proxy_port/" :http:big.bin "$out"
    }
    h_curl() { measure http "curl (one connection)" 1 "$out" "$big_sha" curl -sS -o "$out" "$url"; }
    h_ranges() {
        ranges "$url" "$CONNECTIONS"
        measure http "$CONNECTIONS × curl -r (ranges at once): the proxy's ceiling" "$CONNECTIONS" "$(parts)" "$big_sha" bash "$WORK/ranges.sh"
    }
    # shellcheck disable=SC2046  # if_segmented is empty or one word
    # shellcheck disable=SC2086  # HTTP_ROWS is a list of names
    run_rounds "HTTP through the proxy" ${HTTP_ROWS:-h_fdl h_aria h_axel h_lftp h_rclone h_curl h_ranges $(if_segmented h_fdl1) $([ "$CONNECTIONS" = 4 ] || if_segmented h_fdl4) $(if_segmented h_fdlauto) $(if_segmented h_fdlauto2)}
    stop_shaping_proxy
    stop_local_nginx
fi

# 2) SFTP through the proxy in front of sshd (key login, host key checked everywhere)
if wants sftp; then
    start_local_sshd "$WORK"
    start_shaping_proxy "$sshd_port" "$DELAY_MS" "$RATE" "$WORK/proxy.log"
    trust_sshd_port "$proxy_port"
    key="$WORK/id_ed25519"; kh="$WORK/known_hosts"
    path="$WORK/www/big.bin"
    url="sftp://root@127.0.0.1:$proxy_port$path"
    out="$WORK/out/big.bin"
    ssh_cmd="ssh -a -x -i $key -o UserKnownHostsFile=$kh -o StrictHostKeyChecking=yes -o BatchMode=yes"
    hostsha=$(ssh-keygen -l -E sha256 -f "$WORK/host_key.pub" | awk '{ print $2 }' | sed 's/^SHA256://')
    echo "get $path $out" > "$WORK/get.batch"
    # shellcheck disable=SC2046  # fdl_x is empty or two words
    s_fdl() {
        measure sftp "$(fdl_label "$CONNECTIONS")" "$(fdl_conns "$CONNECTIONS")" "$out" "$big_sha" "$FDL" get -q $(fdl_x "$CONNECTIONS") \
            --identity "$key" --known-hosts "$kh" -d "$WORK/out" "$url"
    }
    s_fdlauto() {
        measure sftp "fdl get (automatic connections)" auto "$out" "$big_sha" "$FDL" get -q --identity "$key" --known-hosts "$kh" -d "$WORK/out" "$url"
    }
    s_fdl1() { measure sftp "fdl get -x 1" 1 "$out" "$big_sha" "$FDL" get -q -x 1 --identity "$key" --known-hosts "$kh" -d "$WORK/out" "$url"; }
    s_lftp() {
        measure sftp "lftp pget -n $CONNECTIONS sftp://" "$CONNECTIONS" "$out" "$big_sha" lftp -c "set sftp:connect-program '$ssh_cmd'; pget -n $CONNECTIONS 'sftp://root:@127.0.0.1:$proxy_port$path' -o '$out'"
    }
    s_rclone() {
        measure sftp "rclone copyto :sftp: --multi-thread-streams $CONNECTIONS" "$CONNECTIONS" "$out" "$big_sha" rclone --config "$WORK/rclone.conf" \
            copyto --multi-thread-streams "$CONNECTIONS" --multi-thread-cutoff "$rclone_cutoff" --sftp-host 127.0.0.1 --sftp-port "$proxy_port" \
            --sftp-user root --sftp-key-file "$key" --sftp-known-hosts-file "$kh" --sftp-disable-hashcheck ":sftp:$path" "$out"
    }
    s_sftp() {
        measure sftp "OpenSSH sftp -b (one connection)" 1 "$out" "$big_sha" sftp -q -i "$key" -o "UserKnownHostsFile=$kh" \
            -o StrictHostKeyChecking=yes -o BatchMode=yes -P "$proxy_port" -b "$WORK/get.batch" root@127.0.0.1
    }
    # Two references: the same ranges through the proxy (curl's libssh2 keeps a small read-ahead,
    # so one curl gets well under the cap at 40 ms), and straight to sshd: what SSH's encryption
    # on this machine lets through at all, proxy or not.
    s_ranges() {
        curl_ssh=(--key "$key" --pubkey "$key.pub" --hostpubsha256 "$hostsha")
        ranges "$url" "$CONNECTIONS"
        curl_ssh=()
        measure sftp "$CONNECTIONS × curl -r sftp:// (ranges at once, through the proxy)" "$CONNECTIONS" "$(parts)" "$big_sha" bash "$WORK/ranges.sh"
    }
    s_direct() {
        curl_ssh=(--key "$key" --pubkey "$key.pub" --hostpubsha256 "$hostsha")
        ranges "sftp://root@127.0.0.1:$sshd_port$path" "$CONNECTIONS"
        curl_ssh=()
        measure sftp "$CONNECTIONS × curl -r sftp:// straight to sshd, no proxy: SSH's ceiling here" "$CONNECTIONS" "$(parts)" "$big_sha" bash "$WORK/ranges.sh"
    }
    # shellcheck disable=SC2046  # if_segmented is empty or one word
    run_rounds "SFTP through the proxy" s_fdl s_lftp s_rclone s_sftp s_ranges s_direct $(if_segmented s_fdl1) $(if_segmented s_fdlauto)
    stop_shaping_proxy
    stop_local_sshd
fi

# 3) plain loopback, no proxy: a segmented 1 GiB against one connection
if wants loopback; then
    LOCAL_NGINX_ACCESS_LOG=off start_local_nginx "$WORK" 0
    url="http://127.0.0.1:$port/huge.bin"
    out="$WORK/out/huge.bin"
    # shellcheck disable=SC2046  # fdl_x is empty or two words
    l_fdl() { measure loopback "$(fdl_label "$CONNECTIONS")" "$(fdl_conns "$CONNECTIONS")" "$out" "$huge_sha" "$FDL" get -q $(fdl_x "$CONNECTIONS") -d "$WORK/out" "$url"; }
    l_fdlauto() { measure loopback "fdl get (automatic connections)" auto "$out" "$huge_sha" "$FDL" get -q -d "$WORK/out" "$url"; }
    l_fdl1() { measure loopback "fdl get -x 1" 1 "$out" "$huge_sha" "$FDL" get -q -x 1 -d "$WORK/out" "$url"; }
    l_curl() { measure loopback "curl (one connection)" 1 "$out" "$huge_sha" curl -sS -o "$out" "$url"; }
    # shellcheck disable=SC2046  # if_segmented is empty or one word
    run_rounds "HTTP on loopback" l_fdl l_curl $(if_segmented l_fdl1) $(if_segmented l_fdlauto)
    stop_local_nginx
fi

# RESULTS_COPY=FILE keeps the raw runs (one line each: case|name|connections|ms|rss|user|sys|proxy|status).
[ -z "${RESULTS_COPY:-}" ] || cp "$WORK/results" "$RESULTS_COPY"
python3 - "$WORK/results" "$SIZE_MIB" "$LOOPBACK_MIB" "$RATE" "$DELAY_MS" "$ROUNDS" "$segmented" "$CONNECTIONS" "$started" <<'EOF'
import statistics, sys
path, size_mib, loop_mib, rate, delay, rounds, segmented, conns, started = sys.argv[1:]
size, loop_size, rate, rounds, conns = int(size_mib) << 20, int(loop_mib) << 20, float(rate), int(rounds), int(conns)
rows = {}
for line in open(path):
    case, name, c, wall, rss, user, sys_, proxy, status = line.rstrip("\n").split("|")
    if status.startswith("skipped"):
        rows.setdefault((case, name), []).append((c, None, 0, 0.0, 0.0, status))
        continue
    rows.setdefault((case, name), []).append((c, int(wall) / 1000, int(rss), float(user) + float(sys_), int(proxy) / 100, status))

def summary(case, name):
    runs = rows[(case, name)]
    good = [r for r in runs if r[5] == "ok"]
    bad = [r[5] for r in runs if r[5] != "ok"]
    if not good:
        return runs[0][0], None, None, None, None, "; ".join(dict.fromkeys(bad))
    return (good[0][0], statistics.median(r[1] for r in good), max(r[2] for r in good),
            statistics.median(r[3] for r in good), statistics.median(r[4] for r in good),
            "ok" if not bad else "ok in %d of %d (%s)" % (len(good), len(runs), "; ".join(bad)))

def ours(name):
    return name.startswith("fdl")

def reference(name):
    return " × curl -r" in name

def goal_row(r):
    """The row the goals are about: fdl get -x CONNECTIONS, or fdl's one row without -x."""
    wanted = "fdl get -x %d" % conns
    return [wanted] if wanted in r["mbs"] else [n for n in r["mbs"] if ours(n) and "-x 1" not in n]

def table(case, title, nbytes, shaped):
    names = [n for (c, n) in rows if c == case]
    if not names:
        return {}
    mbs = {}
    for n in names:
        s = summary(case, n)
        mbs[n] = nbytes / s[1] / 1e6 if s[1] else None
    peers = [mbs[n] for n in names if not ours(n) and not reference(n) and mbs[n]]
    best = max(peers) if peers else None
    head = "| %s | connections | s | MB/s | ÷ best peer |" % title
    head += " share of cap × connections |" if shaped else ""
    head += " peak RSS MiB | CPU s | proxy CPU s | SHA-256 |" if shaped else " peak RSS MiB | CPU s | SHA-256 |"
    print(head)
    print("|" + "---|" * (head.count("|") - 1))
    for n in sorted(names, key=lambda n: (not ours(n), reference(n), -(mbs[n] or 0))):
        c, wall, rss, cpu, proxy, status = summary(case, n)
        if wall is None:
            print("| %s | %s | - | - | - |%s - | - |%s %s |" % (n, c, " - |" if shaped else "", " - |" if shaped else "", status))
            continue
        ratio = "%.2f" % (mbs[n] / best) if best else "-"
        line = "| %s | %s | %.2f | %.1f | %s |" % (n, c, wall, mbs[n], ratio)
        if shaped:
            line += " %.0f %% |" % (100 * mbs[n] / (rate * int(c) / 1e6)) if c.isdigit() else " - |"
        line += " %.0f | %.2f |" % (rss / 1024, cpu)
        if shaped:
            line += " %.2f |" % proxy
        print(line + " %s |" % status)
    print()
    return {"mbs": mbs, "best": best}

print("%s, %s; MB/s = 10^6 bytes/s; ÷ best peer = MB/s ÷ the fastest other tool's (not the curl -r rows); "
      "share = MB/s ÷ (%.0f MB/s × connections)" % (started, "medians of %d rounds" % int(rounds) if int(rounds) > 1 else "one round", float(rate) / 1e6))
print()
setting = "%s ms each way, %.0f MB/s per connection" % (delay, rate / 1e6)
median = " (median of %d rounds)" % rounds if rounds > 1 else ""
results = {}
results["http"] = table("http", "HTTP, %s MiB through the proxy (%s)%s" % (size_mib, setting, median), size, True)
results["sftp"] = table("sftp", "SFTP, %s MiB through the proxy (%s)%s" % (size_mib, setting, median), size, True)
results["loopback"] = table("loopback", "HTTP, %s MiB on loopback (no proxy)%s" % (loop_mib, median), loop_size, False)

print("Goals (issue #14):")
for case in ("http", "sftp"):
    r = results[case]
    if not r:
        continue
    seg = goal_row(r)
    ceiling = [n for n in r["mbs"] if "ceiling" in n]
    if not seg or not r["mbs"][seg[0]]:
        print("- %s: no fdl figure" % case.upper())
        continue
    ours_mbs = r["mbs"][seg[0]]
    cap = rate * conns / 1e6
    ceil = r["mbs"][ceiling[0]] if ceiling and r["mbs"][ceiling[0]] else None
    vs = ours_mbs / r["best"] if r["best"] else None
    print("- %s: %s %.1f MB/s = %s the best peer (goal ≥ 1.0: %s), %.0f %% of cap × connections %.0f MB/s "
          "(goal ≥ 90 %%: %s); %s in this run: %s" % (
              case.upper(), seg[0], ours_mbs, "%.2fx" % vs if vs else "-",
              ("met" if vs >= 1.0 else "missed") if vs else "-", 100 * ours_mbs / cap, cap,
              "met" if ours_mbs >= 0.9 * cap else "missed",
              "the proxy's own ceiling" if case == "http" else "SSH's ceiling without the proxy",
              "%.1f MB/s (%.0f %% of the cap)" % (ceil, 100 * ceil / cap) if ceil else "-"))
r = results["loopback"]
if r:
    one = r["mbs"].get("fdl get -x 1")
    seg = goal_row(r)
    if one and seg and r["mbs"][seg[0]]:
        x = r["mbs"][seg[0]] / one
        print("- loopback: %s ÷ fdl get -x 1 = %.2fx (goal ≥ 1.3x: %s)" % (seg[0], x, "met" if x >= 1.3 else "missed"))
    else:
        print("- loopback: no segmented fdl in this build, so no ratio against one connection")
EOF
exit "$failed"
