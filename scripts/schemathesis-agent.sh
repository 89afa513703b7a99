#!/usr/bin/env bash
# Runs schemathesis (property-based tests from PyPI) against a running `fdl agent --tcp`: every
# operation of docs/agent-api.openapi.json with generated requests, valid and invalid, checked
# for no 5xx and answers of the documented statuses, content types, shapes and headers
# (scripts/schemathesis/agent.toml says which checks). The test AgentSchemathesisTests runs it.
#
#   bash scripts/schemathesis-agent.sh --port PORT --state STATE_DIR --scratch DIR [st run options...]
#
# PORT is the agent's TCP port (STATE_DIR/agent.port), its token is read from
# STATE_DIR/agent.token and given to schemathesis in the environment (not on a command line).
# DIR (made if missing) takes the downloads the run adds: destinations are rewritten into it and
# URLs pointed at 127.0.0.1:1 (scripts/schemathesis/fdl_agent_hooks.py). Options after these go to
# `st run` (e.g. --max-examples 200, --seed 7, --max-time 60).
# schemathesis is installed into a virtualenv under ${XDG_CACHE_HOME:-~/.cache}/fdl-test-venv the
# first time (scripts/test-venv.sh).
set -euo pipefail

version=4.32.5
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(dirname "$here")

port="" state="" scratch=""
while [ $# -gt 0 ]; do
  case "$1" in
    --port) port=$2; shift 2 ;;
    --state) state=$2; shift 2 ;;
    --scratch) scratch=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ -z "$port" ] || [ -z "$state" ] || [ -z "$scratch" ]; then
  echo "usage: $0 --port PORT --state STATE_DIR --scratch DIR [st run options...]" >&2
  exit 64
fi

venv=$(bash "$here/test-venv.sh" "schemathesis-$version" "schemathesis==$version")

mkdir -p "$scratch/out" "$scratch/in"
token=$(tr -d '[:space:]' < "$state/agent.token")
cd "$scratch"   # anything schemathesis writes (its report directory) stays here
FDL_AGENT_TOKEN=$token FDL_SCHEMATHESIS_DIR=$(pwd) PYTHONPATH="$here/schemathesis" NO_COLOR=1 \
  exec "$venv/bin/st" --config-file "$here/schemathesis/agent.toml" run "$root/docs/agent-api.openapi.json" \
    --url "http://127.0.0.1:$port" --no-color "$@"
