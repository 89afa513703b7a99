#!/usr/bin/env bash
# Records fdl's live display for docs/fdl-progress-COLSxROWS.txt: runs `fdl get` on 40 local files
# (nginx on 127.0.0.1, 2 MiB/s per connection, 4 downloads at once) in a COLS x ROWS tmux window,
# and captures the whole screen after about 2 s and 6 s, and at the end.
#   bash scripts/record-progress.sh 120 30 > docs/fdl-progress-120x30.txt
#   bash scripts/record-progress.sh 60 20 > docs/fdl-progress-60x20.txt
# Needs nginx and tmux (Debian: nginx-light tmux). Prints the recording on standard output.
set -euo pipefail
cols=${1:-120}
rows=${2:-30}
cd "$(dirname "$0")/.."
. scripts/local-nginx.sh
swift build --product fdl >&2
fdl="$(swift build --show-bin-path)/fdl"
# As long as "/home/me", which replaces it in the capture: the lines wrap where they did.
work="$(mktemp -d /tmp/XXX)"
session="fdl-record-$$"
cleanup() {
    tmux kill-session -t "$session" 2>/dev/null || true
    stop_local_nginx
    rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/www/slow"
names=()
for i in $(seq 1 40); do
    case $((i % 4)) in
        0) name="ubuntu-24.04-desktop-part$i.iso" ;;
        1) name="dataset-$i.tar" ;;
        2) name="model-weights-shard-$i-of-40.safetensors" ;;
        3) name="log-$i.txt" ;;
    esac
    head -c $(( (i % 5 + 1) * 1000000 )) /dev/urandom > "$work/www/slow/$name"
    names+=("$name")
done
start_local_nginx "$work" 2m
base="http://127.0.0.1:$port/slow"
urls=$(printf "$base/%s " "${names[@]}")
command="get $urls-d downloads"
tmux new-session -d -s "$session" -x "$cols" -y "$rows" -c "$work" "$fdl $command; sleep 60"
# The screen as text, without trailing blank lines, with the paths and the port made neutral.
capture() {
    tmux capture-pane -p -t "$session" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' \
        | sed -e "s|$work|/home/me|g" -e "s|127.0.0.1:$port|127.0.0.1:8080|g"
}
echo "fdl get of 40 URLs in a ${cols}x${rows} terminal (tmux) against a local nginx at 2 MiB/s per"
echo "connection, 4 at once; the screen captured with 'tmux capture-pane -p' after about 2 s and 6 s,"
echo "and at the end. Made by: bash scripts/record-progress.sh $cols $rows"
echo
echo "\$ fdl get http://127.0.0.1:8080/slow/dataset-1.tar ... (40 URLs) -d downloads"
sleep 2; echo; echo "--- after 2 s (the whole ${cols}x${rows} screen) ---"; capture
sleep 4; echo; echo "--- after 6 s ---"; capture
for _ in $(seq 1 300); do
    capture | grep -q "completed, " && break
    sleep 0.2
done
echo; echo "--- at the end ---"; capture
