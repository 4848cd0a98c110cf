#!/usr/bin/env bash
# The main job: installs dependencies, builds tk, and runs the write-sync post-mortem on the
# trace bundled in testdata/ (a dd to an `-o sync` ext4 mount, a dd to a default mount and a
# dd with oflag=dsync, recorded on a real machine with trace-cmd's format). Idempotent.
#
#   scripts/demo.sh [TRACE [MOUNTINFO]]   (defaults: the bundled trace.dat and its mountinfo)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j"$(nproc)" --target tk
TRACE=${1:-testdata/recorded/iolat/writesync.trace.dat}
MOUNTINFO=${2:-testdata/recorded/iolat/mountinfo.txt}
echo "\$ tk iolat --mountinfo $MOUNTINFO $TRACE" >&2
./build/tk iolat --mountinfo "$MOUNTINFO" "$TRACE"
