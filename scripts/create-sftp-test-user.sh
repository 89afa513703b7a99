#!/usr/bin/env bash
# Creates the local user the SFTP password and keyboard-interactive tests log in as.
# Idempotent: running it again only resets the password. Needs root. Prints what it did.
#
#   user: fdl-sftp-test   password: fdl-sftp-test-password   (a throwaway account, tests only)
set -euo pipefail
user="${FDL_SFTP_TEST_USER:-fdl-sftp-test}"
password="${FDL_SFTP_TEST_PASSWORD:-fdl-sftp-test-password}"
if [ "$(id -u)" -ne 0 ]; then
    echo "create-sftp-test-user.sh: must run as root (useradd, chpasswd)" >&2
    exit 1
fi
if id "$user" >/dev/null 2>&1; then
    echo "user $user exists"
else
    useradd --create-home --shell /bin/bash "$user"
    echo "created user $user"
fi
echo "$user:$password" | chpasswd
echo "set the password of $user"
