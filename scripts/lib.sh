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

# Builds only the named targets (a device call need not compile every study).
pk_build_targets() {
  local gen=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$PKBENCH_BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$PKBENCH_ROOT" -B "$PKBENCH_BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${PKBENCH_CMAKE_ARGS:-}
  fi
  cmake --build "$PKBENCH_BUILD_DIR" -j "${PKBENCH_JOBS:-$(nproc)}" --target "$@"
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

# The launcher for a study run in peer mode $1: nothing for single (one process drives
# every GPU), mpirun with one rank per GPU for ipc and vmm. Prints one word per line.
pk_launcher() {
  case "${1:-single}" in
    single) ;;
    ipc|vmm)
      local n
      n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
      printf '%s\n' mpirun -np "${PKBENCH_RANKS:-$n}"
      [ "$(id -u)" = 0 ] && printf '%s\n' --allow-run-as-root
      # The multicast guards reach every rank; ptrace-based shared-memory copies are refused
      # in containers.
      printf '%s\n' -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST \
        -x CUDA_MODULE_LOADING -x PKBENCH_GIT_COMMIT --mca btl_vader_single_copy_mechanism none
      ;;
    *) echo "unknown peer mode '$1' (single, ipc, vmm)" >&2; return 2 ;;
  esac
}

# The --peer-mode=X (or --peer-mode X) among the arguments, or "single".
pk_peer_mode_of() {
  local prev=""
  for a in "$@"; do
    case "$a" in --peer-mode=*) echo "${a#--peer-mode=}"; return ;; esac
    [ "$prev" = --peer-mode ] && { echo "$a"; return; }
    prev=$a
  done
  echo single
}
