#!/usr/bin/env bash
# Installs the Debian packages swift-file-download builds and tests with, if any is missing.
# Runs `apt-get update` once, and only when something has to be installed. Uses sudo when not root.
#   bash scripts/install-deps.sh             # everything in `packages` below
#   bash scripts/install-deps.sh --benchmarks
#                                            # that and the peers only Benchmarks/segments.sh runs
#                                            # (axel, lftp, rclone: not needed by the build, tests or CI)
#   bash scripts/install-deps.sh PKG...      # only these (demo.sh asks for what it needs)
set -euo pipefail

packages=(
  pkg-config
  libcurl4-openssl-dev   # HTTP transport (libcurl)
  libssh2-1-dev          # SFTP transport (libssh2)
  libsqlite3-dev         # SQLite download store
  sqlite3                # the sqlite3 command: tests that make one journal write fail
  nginx-light            # HTTP/HTTPS test server
  apache2                # HTTP test server (Apache httpd: 416 without Content-Range, AddEncoding gzip)
  lighttpd               # HTTP test server (lighttpd: 416 without Content-Range)
  vsftpd                 # FTP/FTPS test server
  openssh-server         # sshd for the SFTP tests
  openssh-client         # ssh-keygen, sftp (tests, benchmarks)
  openssl                # throwaway CA for the HTTPS tests
  curl                   # benchmarks: the tool users would pick instead
  aria2                  # benchmarks
  wget                   # benchmarks: Benchmarks/ftp.sh's wget row (skipped when missing)
  python3                # the fault-injecting HTTP test server; drives the web page test
  python3-venv           # the virtualenvs schemathesis, moto and awscli (PyPI) are installed into (scripts/schemathesis-agent.sh, scripts/moto-s3.sh)
  chromium               # the web page test (headless)
  chromium-driver        # the web page test: WebDriver for chromium
  util-linux             # script(1): pseudo-terminal for the CLI tests; prlimit, setpriv: the agent flood test
  procps                 # ps, for the crash tests
  time                   # /usr/bin/time: peak memory and CPU time in the benchmarks
  wrk                    # benchmarks: the HTTP ceiling (what nginx serves when nothing is written)
  man-db                 # man -l: the man page test (FDLInstallTests)
  groff-base             # renders the man page for man
  iproute2               # ip netns, veth: the network-loss tests
  postgresql             # the fleet tests: a real PostgreSQL server (initdb in a temporary directory)
)

# The segmented-download benchmark (Benchmarks/segments.sh, issue #14) compares with these too.
benchmark_packages=(
  axel                   # axel -n 8
  lftp                   # lftp pget -n 8 (HTTP and SFTP)
  rclone                 # rclone's multi-thread download (HTTP and SFTP)
)

if [ "${1:-}" = "--benchmarks" ]; then
  packages+=("${benchmark_packages[@]}")
elif [ $# -gt 0 ]; then
  packages=("$@")
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "all system packages present"
fi
