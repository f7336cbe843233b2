#!/usr/bin/env bash
# build_stale.sh SOURCE_DIR WORK_DIR: scripts/lib.sh's pk_build configures a build folder
# again when python3's NVSHMEM wheel came (or went) after the folder was configured; here on
# a fake cache and a fake python3 whose `import nvidia.nvshmem` succeeds or fails.
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work/bin" "$work/build"
# shellcheck source=/dev/null
source "$src/scripts/lib.sh"
PKBENCH_BUILD_DIR=$work/build
PATH=$work/bin:$PATH
fails=0
fake_python() { printf '#!/bin/sh\nexit %s\n' "$1" > "$work/bin/python3"; chmod +x "$work/bin/python3"; }
cache() { printf 'CMAKE_BUILD_TYPE:STRING=Release\n%s' "${1:+PKBENCH_NVSHMEM_WHEEL_SEEN:INTERNAL=$1
}" > "$work/build/CMakeCache.txt"; }
expect() {  # expect WANT(stale|fresh) CASE
  local got=fresh
  pk_build_stale && got=stale
  if [ "$got" = "$1" ]; then echo "ok   $2: $got"; else echo "FAIL $2: $got, expected $1"; fails=$((fails + 1)); fi
}
fake_python 0
rm -f "$work/build/CMakeCache.txt"
expect fresh "no build folder yet (pk_build configures it anyway)"
cache OFF; expect stale "configured without the wheel, wheel installed since"
cache ON; expect fresh "configured with the wheel, still there"
cache ROOT; expect fresh "configured with PKBENCH_NVSHMEM_ROOT"
cache ""; expect stale "configured before the wheel's state was recorded"
fake_python 1
cache ON; expect stale "configured with the wheel, removed since"
cache OFF; expect fresh "configured without the wheel, still none"
exit $((fails > 0))
