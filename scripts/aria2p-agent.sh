#!/usr/bin/env bash
# Drives a running `fdl agent --tcp PORT --aria2-rpc` with aria2p (PyPI: a Python client and
# library for aria2's JSON-RPC, written by others for aria2): scripts/aria2p/drive_agent.py adds,
# watches, pauses, resumes and removes downloads through aria2p's own calls and listens to the
# notifications with aria2p's listener. The test Aria2pTests runs it.
#
#   bash scripts/aria2p-agent.sh --port PORT --state STATE_DIR --files URL --out DIR --small-sha256 HEX
#
# PORT is the agent's TCP port, its token is read from STATE_DIR/agent.token and given to the
# script in the environment (not on a command line). URL is a server (nginx of the tests) that
# serves small.bin (whose SHA-256 is HEX), big.bin (slowly, ranges too: it must still run when removed) and
# nothing at missing.bin; DIR is where the downloads go.
# The script prints one JSON line per check and exits 0 when all hold.
# aria2p is installed into a virtualenv under ${XDG_CACHE_HOME:-~/.cache}/fdl-test-venv the first
# time (scripts/test-venv.sh).
set -euo pipefail

version=0.12.3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

port="" state="" files="" out="" digest=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --small-sha256) digest=$2; shift 2 ;;
    *) echo "aria2p-agent.sh: unknown argument $1" >&2; exit 64 ;;
  esac
done
if [ -z "$port" ] || [ -z "$state" ] || [ -z "$files" ] || [ -z "$out" ] || [ -z "$digest" ]; then
  echo "usage: $0 --port PORT --state STATE_DIR --files URL --out DIR --small-sha256 HEX" >&2
  exit 64
fi

venv=$(bash "$here/test-venv.sh" "aria2p-$version" "aria2p==$version")

FDL_AGENT_TOKEN=$(tr -d '[:space:]' < "$state/agent.token") NO_COLOR=1 \
  exec "$venv/bin/python" "$here/aria2p/drive_agent.py" --port "$port" --files "$files" --out "$out" --small-sha256 "$digest"
