# Shared by the scripts: paths, build, machine name, multicast guards.
# shellcheck shell=bash
PKBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKBENCH_BUILD_DIR=${PKBENCH_BUILD_DIR:-$PKBENCH_ROOT/build}

# NVLink multicast (NVLS) can take a shared host's GPUs down: keep it off everywhere.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1

pk_log() { printf '[pkbench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

pk_build() {
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$PKBENCH_BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$PKBENCH_ROOT" -B "$PKBENCH_BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${PKBENCH_CMAKE_ARGS:-}
  fi
  cmake --build "$PKBENCH_BUILD_DIR" -j "${PKBENCH_JOBS:-$(nproc)}"
}

# "h200x2" from two "NVIDIA H200"s; "h100x1" from one "NVIDIA H100 80GB HBM3".
pk_machine_name() {
  local names count model
  names=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null) || return 1
  count=$(printf '%s\n' "$names" | grep -c .)
  model=$(printf '%s\n' "$names" | head -n1 | sed -E 's/^NVIDIA //; s/ .*//' | tr 'A-Z' 'a-z' | tr -cd 'a-z0-9')
  printf '%sx%s\n' "$model" "$count"
}

pk_git_commit() {
  if [ -n "${PKBENCH_GIT_COMMIT:-}" ]; then printf '%s\n' "$PKBENCH_GIT_COMMIT"; return; fi
  git -C "$PKBENCH_ROOT" rev-parse --short=12 HEAD 2>/dev/null || echo unknown
}
