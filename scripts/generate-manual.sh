#!/usr/bin/env bash
# Regenerates docs/fdl.1, the man page of fdl, with swift-argument-parser's generate-manual plugin
# (from fdl's own option declarations; works offline once the package's dependencies are fetched).
# Run it after changing fdl's options: FDLInstallTests fails while docs/fdl.1 misses an option.
#   bash scripts/generate-manual.sh
set -euo pipefail
cd "$(dirname "$0")/.."
# fdl first: a build that fails leaves docs/fdl.1 as it was.
swift build --product fdl
swift package plugin generate-manual --configuration debug
cp .build/plugins/GenerateManual/outputs/fdl/fdl.1 docs/fdl.1
# The examples `fdl get --help` ends with (GetCommand.examples; the plugin has no place for
# them) go in an EXAMPLES section before EXIT STATUS.
examples=$(.build/debug/fdl get --help | sed -n '/^EXAMPLES:$/,$p' | tail -n +2 | awk '
    /^  fdl / { sub(/^  /, ""); gsub(/"/, "\\(dq"); print ".It Li \"" $0 "\""; next }
    /^        / { sub(/^ +/, ""); print }')
awk -v examples="$examples" '
    /^\.Sh "EXIT STATUS"/ { print ".Sh EXAMPLES"; print ".Bl -tag -width 6n"; print examples; print ".El" }
    { print }' docs/fdl.1 > docs/fdl.1.new
mv docs/fdl.1.new docs/fdl.1
echo "wrote docs/fdl.1 (view it with: man -l docs/fdl.1)"
