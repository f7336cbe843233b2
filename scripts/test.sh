#!/usr/bin/env bash
# Build everything and run the tests. CPU tests run everywhere; GPU tests (label "gpu")
# run where a GPU is usable and are reported as skipped, with the reason, elsewhere.
# Extra arguments go to ctest (e.g. -L gpu, -R Transfer).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
pk_build
ctest --test-dir "$PKBENCH_BUILD_DIR" --output-on-failure "$@"
