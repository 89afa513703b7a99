#!/usr/bin/env bash
# The README's main-job command: on a fresh Debian machine, installs what is missing, builds fdl,
# serves generated sample files from a local nginx on 127.0.0.1, and downloads them with fdl:
# live progress bars, an interruption (Ctrl-C) and a re-run that resumes, and verified files.
# No internet is needed once the Debian packages are there. Stops the server at the end.
#
#   scripts/demo.sh            # the whole show
#   DEMO_RATE=512k scripts/demo.sh   # slower transfers (nginx limit_rate per connection)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/local-nginx.sh

# Per connection: the two files of 16 MiB and more come over 4 connections each (segments), so
# at 1 MB/s all three are still running when the interruption comes.
rate="${DEMO_RATE:-1m}"
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

# 1. Debian packages: the libraries fdl links, and the server the demo starts.
needed=(libcurl4-openssl-dev libssh2-1-dev pkg-config)
command -v nginx >/dev/null 2>&1 || needed+=(nginx-light)
bash scripts/install-deps.sh "${needed[@]}"

# 2. Build.
say "building fdl"
swift build --product fdl
fdl="$(swift build --show-bin-path)/fdl"

# 3. A local server with sample files.
work="$(mktemp -d /tmp/fdl-demo.XXXXXX)"
mkdir -p "$work/www" "$work/downloads"
head -c 48M /dev/urandom > "$work/www/debian-12.iso"
head -c 20M /dev/urandom > "$work/www/dataset.tar"
head -c 6M /dev/urandom > "$work/www/model.bin"
cleanup() {
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT
start_local_nginx "$work" "$rate"
say "nginx serves 3 files on http://127.0.0.1:$port/ at $rate/s per connection"

base="http://127.0.0.1:$port"
args=(get "$base/debian-12.iso" "$base/dataset.tar" "$base/model.bin" -d "$work/downloads")
for f in debian-12.iso dataset.tar model.bin; do
    args+=(--sha256 "$(sha256sum "$work/www/$f" | cut -d' ' -f1)")
done

# 4. Download, interrupted after 3 seconds as if by Ctrl-C (on a very fast or slow machine it may
# have finished by then: the rest of the demo holds either way).
say "fdl ${args[*]:0:4} ... (interrupted after 3 s)"
"$fdl" "${args[@]}" &
fdl_pid=$!
sleep 3
kill -INT "$fdl_pid" 2>/dev/null || echo "(fdl had already finished)"
status=0
wait "$fdl_pid" || status=$?
echo "fdl exited with $status (130: interrupted, state saved)"

say "fdl list -d downloads: what the state remembers"
"$fdl" list -d "$work/downloads"

# 5. The same command again: it resumes from the bytes on disk.
say "the same command again: it continues where it stopped"
"$fdl" "${args[@]}"

# 6. Verified files, and a third run that has nothing left to do.
say "the files, checked against the server's copies"
(cd "$work/www" && sha256sum debian-12.iso dataset.tar model.bin) > "$work/expected.sha256"
(cd "$work/downloads" && sha256sum -c "$work/expected.sha256")
echo "resumed requests in nginx's log (206 Partial Content): $(grep -c '" 206 ' "$work/logs/access.log" || true)"
say "and once more: nothing to download"
"$fdl" "${args[@]}"
say "done; the server is stopped and $work removed"
