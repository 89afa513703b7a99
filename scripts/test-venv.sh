#!/usr/bin/env bash
# Prints the path of a virtualenv holding the PyPI packages given (pinned: NAME==VERSION), made the
# first time under ${XDG_CACHE_HOME:-~/.cache}/fdl-test-venv/DIR, under a lock (tests may start
# together). python3 -m venv is Debian's python3-venv (scripts/install-deps.sh installs it).
#
#   venv=$(bash scripts/test-venv.sh DIR 'package==1.2.3' ...)
set -euo pipefail

name=$1
shift
cache=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/fdl-test-venv
venv=$cache/$name
python=python3
[ -x /usr/bin/python3 ] && python=/usr/bin/python3
mkdir -p "$cache"
(
  flock -w 600 9 || { echo "test-venv.sh: another install holds $cache/.lock" >&2; exit 75; }
  if [ ! -f "$venv/.installed" ]; then
    rm -rf "$venv"
    "$python" -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet --disable-pip-version-check "$@" >&2
    touch "$venv/.installed"
  fi
) 9>"$cache/.lock"
echo "$venv"
