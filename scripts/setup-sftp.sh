#!/usr/bin/env bash
# Test set-up of the SFTP transport, run by scripts/test.sh: the local user that the password and
# keyboard-interactive tests log in as. The tests start their own sshd; this needs root.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/create-sftp-test-user.sh
