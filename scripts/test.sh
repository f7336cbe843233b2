#!/usr/bin/env bash
# Bring missing dependencies (Debian packages when root, else the header-only pieces under
# .deps/), build everything and run the tests. CPU tests run everywhere; GPU tests (label
# "gpu") run where a GPU is usable and are reported as skipped, with the reason, elsewhere.
# Extra arguments go to ctest (e.g. -L gpu, -R Transfer).
#   scripts/test.sh [CTEST_ARGS...]     # e.g. scripts/test.sh -L cpu, scripts/test.sh -R Transfer
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -euo pipefail
source "$(dirname "$0")/lib.sh"
pk_ensure_deps || { echo "test.sh: a required dependency is missing (see above)" >&2; exit 1; }
pk_build
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "test.sh: no usable NVIDIA GPU here: the GPU tests (label gpu) run and report themselves Skipped"
  echo "         (reason, per test: \"no usable CUDA GPU: cudaGetDeviceCount: ...\" in Testing/Temporary/LastTest.log)"
fi
ctest --test-dir "$PKBENCH_BUILD_DIR" --output-on-failure "$@"
