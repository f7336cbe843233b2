#!/usr/bin/env bash
# scripts/lib.sh's pk_ensure_deps on a pretend fresh machine (no headers under the include
# roots), as root and as a user, in dry-run mode: what it would install, stage, or name.
#   deps_plan.sh SOURCE_DIR
set -uo pipefail
root=$1
# The caller's own settings must not change the plan under test.
unset PKBENCH_NO_INSTALL PKBENCH_DEPS_AS_ROOT PKBENCH_DEPS_DRY_RUN PKBENCH_DEPS_ROOTS
fail=0
plan() {  # as_root -> output
  PKBENCH_DEPS_ROOTS=/nonexistent PKBENCH_DEPS_DRY_RUN=1 PKBENCH_DEPS_AS_ROOT=$1 \
    bash -c "source '$root/scripts/lib.sh'; pk_ensure_deps" 2>&1
}
expect() {  # name output regex
  if printf '%s\n' "$2" | grep -Eq -- "$3"; then echo "ok $1"; else echo "FAILED $1: /$3/ not in:"; printf '%s\n' "$2" | sed 's/^/    /'; fail=1; fi
}
user=$(plan 0)
expect "user: headers staged" "$user" 'not root: staging the header-only pieces into .deps/include: libcli11-dev nlohmann-json3-dev'
expect "user: packages named" "$user" 'cannot install without root: libbenchmark-dev libgtest-dev'
expect "user: missing listed" "$user" 'missing here: .*Google Benchmark.*CLI11'
as_root=$(plan 1)
if command -v apt-get >/dev/null 2>&1; then
  expect "root: apt installs" "$as_root" 'installing as root: apt-get install -y --no-install-recommends .*libbenchmark-dev libgtest-dev libcli11-dev nlohmann-json3-dev'
fi
# Where everything is present nothing is said and nothing is done: a pretend machine with
# every command and header of PK_DEPS (this machine may lack optional ones, e.g. gnuplot).
full=$(mktemp -d)
trap 'rm -rf "$full"' EXIT
mkdir -p "$full/bin" "$full/include" "$full/cuda/bin"
while IFS='|' read -r _ how _ _ _; do
  case "$how" in
    cmd:*) printf '#!/bin/sh\nexit 0\n' > "$full/bin/${how#cmd:}"; chmod +x "$full/bin/${how#cmd:}" ;;
    hdr:*) mkdir -p "$(dirname "$full/include/${how#hdr:}")"; : > "$full/include/${how#hdr:}" ;;
  esac
done < <(bash -c "source '$root/scripts/lib.sh'; printf '%s\n' \"\$PK_DEPS\"")
printf '#!/bin/sh\nexit 0\n' > "$full/cuda/bin/nvcc"; chmod +x "$full/cuda/bin/nvcc"
here=$(PATH="$full/bin:$PATH" CUDA_HOME="$full/cuda" PKBENCH_DEPS_ROOTS="$full/include" PKBENCH_DEPS_DRY_RUN=1 \
  bash -c "source '$root/scripts/lib.sh'; pk_ensure_deps && echo fine" 2>&1)
expect "a machine with everything" "$here" '^fine$'
exit $fail
