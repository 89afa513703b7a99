#!/usr/bin/env bash
# Starts the S3-compatible test server (scripts/s3/moto_s3_server.py: moto's server mode from PyPI
# with its SigV4 authentication on) and, with --aws, runs the AWS CLI of the same virtualenv
# instead (the S3 benchmark's reference):
#
#   bash scripts/moto-s3.sh              # the server: prints its endpoint and keys as one JSON line
#   bash scripts/moto-s3.sh --aws ARGS   # aws ARGS
#
# moto[server] and awscli are installed into a virtualenv under
# ${XDG_CACHE_HOME:-~/.cache}/fdl-test-venv the first time (python3 -m venv from Debian's
# python3-venv; scripts/install-deps.sh installs it), pinned, under a lock (tests may start
# together). Tests/TestSupport/S3Server.swift starts it.
set -euo pipefail

moto=5.2.5
awscli=1.46.3
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fdl-test-venv
venv=$cache/moto-$moto-awscli-$awscli
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
mkdir -p "$cache"
(
  flock -w 600 9 || { echo "moto-s3.sh: another install holds $cache/.lock" >&2; exit 75; }
  if [ ! -f "$venv/.installed" ]; then
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "moto[server]==$moto" "awscli==$awscli" >&2
    touch "$venv/.installed"
  fi
) 9>"$cache/.lock"

if [ "${1:-}" = "--aws" ]; then
  shift
  exec "$venv/bin/aws" "$@"
fi
exec "$venv/bin/python" "$here/s3/moto_s3_server.py"
