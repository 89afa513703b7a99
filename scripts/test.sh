#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs what is missing, builds, tests.
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh --filter X # passes extra arguments to `swift test`
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
for setup in scripts/setup-*.sh; do
  [ -e "$setup" ] && bash "$setup"
done

swift build --build-tests
swift test --skip-build "$@"
