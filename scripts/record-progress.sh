#!/usr/bin/env bash
# Records fdl's live display for docs/fdl-progress.txt: runs `fdl get` on three local files in a
# 110x10 tmux window and captures the screen after about 2 s, 4 s and at the end.
# Needs nginx and tmux (Debian: nginx-light tmux). Prints the recording on standard output.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/local-nginx.sh
swift build --product fdl >&2
fdl="$(swift build --show-bin-path)/fdl"
work="$(mktemp -d /tmp/fdl-record.XXXXXX)"
session="fdl-record-$$"
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www/slow"
head -c 30000000 /dev/urandom > "$work/www/slow/debian-12.iso"
head -c 12000000 /dev/urandom > "$work/www/slow/dataset.tar"
head -c 5000000 /dev/urandom > "$work/www/slow/model.bin"
start_local_nginx "$work" 3m
base="http://127.0.0.1:$port/slow"
command="get $base/debian-12.iso $base/dataset.tar $base/model.bin -d downloads"
tmux new-session -d -s "$session" -x 110 -y 10 -c "$work" "$fdl $command; sleep 60"
capture() { tmux capture-pane -p -t "$session" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' | sed "s|$work|/home/me|g"; }
echo "\$ fdl $command"
sleep 2; echo; echo "--- after 2 s ---"; capture
sleep 2; echo; echo "--- after 4 s ---"; capture
for _ in $(seq 1 100); do
    capture | grep -q "completed, " && break
    sleep 0.2
done
echo; echo "--- at the end ---"; capture
