#!/usr/bin/env bash
# The whole test suite on a fresh Debian machine: installs what is missing, builds, tests.
#   bash scripts/test.sh            # everything
#   bash scripts/test.sh --filter X # passes extra arguments to `swift test`
#   FDL_SKIP_DOCS=1 bash scripts/test.sh  # without building the DocC documentation
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
for setup in scripts/setup-*.sh; do
  [ -e "$setup" ] && bash "$setup"
done

swift build --build-tests
swift test --skip-build "$@"

# Every module's DocC catalog builds, and any DocC warning fails the run (about a minute on a
# 2-core machine after the build above). FDL_SKIP_DOCS=1 skips it.
if [ "${FDL_SKIP_DOCS:-0}" != 1 ]; then
  swift package generate-documentation --warnings-as-errors \
    --target FileDownload --target FileDownloadHTTP --target FileDownloadSFTP --target FileDownloadSQLite \
    --target FileDownloadMock --target FileDownloadConformance --target FileDownloadCLI \
    --target FileDownloadAgent --target FileDownloadAgentClient
fi
