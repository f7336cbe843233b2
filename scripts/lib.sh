# Shared by the scripts: paths, build, machine name, multicast guards.
# shellcheck shell=bash
PKBENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PKBENCH_BUILD_DIR=${PKBENCH_BUILD_DIR:-$PKBENCH_ROOT/build}

# NVLink multicast (NVLS) can take a shared host's GPUs down: keep it off everywhere.
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1

pk_log() { printf '[pkbench %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }

# A study's check against a reference tool (microbench/<study>/ref_check.sh OUT_DIR [flags]):
# OUT_DIR made (O), BUILD [the build folder], the study's binary BIN and the merger REF (either
# overridable) set. Usage: pk_ref_check_begin BINARY MERGER OUT_DIR.
pk_ref_check_begin() {
  O=$3
  mkdir -p "$O"
  BUILD=${BUILD:-$PKBENCH_BUILD_DIR}
  BIN=${BIN:-$BUILD/bin/$1}
  REF=${REF:-$BUILD/bin/$2}
}
# After a step of a reference check: a failure (status $1) is said with the last lines of the
# step's output files and ends the script with that status. Usage: pk_exit_on_failure RC WHAT FILE...
pk_exit_on_failure() {
  local rc=$1 what=$2
  shift 2
  [ "$rc" = 0 ] && return 0
  echo "$what failed (rc=$rc):" >&2
  tail -20 "$@" >&2
  exit "$rc"
}

# Configures the build folder once, then builds the named targets (a run of one study need not
# compile every study), or everything without arguments.
# pk_build_stale: whether the build folder was configured when python3's NVSHMEM wheel was in
# another state than now (installed after the folder was made, or removed since): the cache's
# PKBENCH_NVSHMEM_WHEEL_SEEN (cmake/Nvshmem.cmake) against `import nvidia.nvshmem` now. A folder
# configured with PKBENCH_NVSHMEM_ROOT is never stale on this account; one configured before
# the value was recorded is (once).
pk_build_stale() {
  local cache=$PKBENCH_BUILD_DIR/CMakeCache.txt seen now=OFF
  [ -f "$cache" ] || return 1
  seen=$(sed -n 's/^PKBENCH_NVSHMEM_WHEEL_SEEN:INTERNAL=//p' "$cache")
  [ "$seen" = ROOT ] && return 1
  python3 -c 'import nvidia.nvshmem' >/dev/null 2>&1 && now=ON
  [ "$seen" != "$now" ]
}
pk_build() {
  local gen=() targets=()
  command -v ninja >/dev/null 2>&1 && gen=(-G Ninja)
  if [ ! -f "$PKBENCH_BUILD_DIR/CMakeCache.txt" ]; then
    cmake -S "$PKBENCH_ROOT" -B "$PKBENCH_BUILD_DIR" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release ${PKBENCH_CMAKE_ARGS:-}
  elif pk_build_stale; then
    pk_log "python3's NVSHMEM wheel changed since $PKBENCH_BUILD_DIR was configured: configuring it again"
    cmake "$PKBENCH_BUILD_DIR" >/dev/null
  fi
  [ $# -gt 0 ] && targets=(--target "$@")
  cmake --build "$PKBENCH_BUILD_DIR" -j "${PKBENCH_JOBS:-$(nproc)}" "${targets[@]}"
}

# The studies, in the order run.sh runs them: microbench/studies.list, one a line ('#' comments).
mapfile -t PK_STUDIES < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' "$PKBENCH_ROOT/microbench/studies.list")
# What the scripts know of each study is declared in its own folder, microbench/<study>/study.sh,
# sourced here: declarations only (no command runs), every name carrying the study's, so a study
# is added or changed in its folder and the scripts name none. The names read here:
#   pk_<study>_runs_ranks=1    one process per GPU where it can (PK_RANK_STUDIES);
#   pk_<study>_uses_nvshmem=1  has NVSHMEM rows (PK_NVSHMEM_STUDIES);
#   pk_<study>_derive_targets  prints the tools run.sh builds for it (its reference tool, the
#                              ones regenerate.sh runs on its CSVs), one a line;
#   pk_<study>_tuned=1         its main CSV feeds the tuning tables (run.sh's tuning/command.txt);
#   pk_<study>_main_flags NGPU prints its flags in the main job, one a line;
#   pk_<study>_harness_cost_flags VIRTUAL_FLAGS... prints its flags in scripts/harness-cost.sh,
#                              one a line (without it: VIRTUAL_FLAGS and its main flags);
#   pk_<study>_regenerate_tools prints the tools scripts/regenerate.sh builds for it, one a line;
#   pk_<study>_regenerate DIR TOOLS rewrites what a results folder DIR derives from its CSVs
#                              (TOOLS: the build's tools folder); non-zero when a step failed.
#   pk_<study>_reproduce_steps prints its steps of scripts/reproduce.sh's plan (each led by its
#                              place in the plan), pk_<study>_reproduce_targets the tools they need;
#   pk_<study>_plot DIR        draws its figures of a results folder DIR (scripts/plot.sh, whose
#                              helpers it may use); exit 0 where it drew some;
# and, for scripts/run.sh, given its run_study STUDY CSV FLAGS..., merge STUDY PARTS..., shown
# PATH, $ngpu and $last_rc (the exit code of the last run_study):
#   pk_<study>_one_gpu DIR VIRTUAL_FLAGS... its one-GPU profile (also --quick on one GPU);
#   pk_<study>_quick DIR       its --quick profile on several GPUs (without it: not in --quick);
#   pk_<study>_clean DIR       removes what an earlier run left beside its main CSV;
#   pk_<study>_after_main DIR ALONE FLAGS... runs what follows its main run (ALONE: 1 when the
#                              study runs alone, FLAGS: the main run's); non-zero when it failed.
# A study's study.sh may declare more for its own steps (named pk_<study>_*).
for _pk_study in "${PK_STUDIES[@]}"; do
  if [ -f "$PKBENCH_ROOT/microbench/$_pk_study/study.sh" ]; then source "$PKBENCH_ROOT/microbench/$_pk_study/study.sh"; fi
done
unset _pk_study
# pk_studies_with TRAIT: the studies whose study.sh sets pk_<study>_TRAIT, in run order.
pk_studies_with() {
  local s v
  for s in "${PK_STUDIES[@]}"; do
    v=pk_${s}_$1
    [ -n "${!v:-}" ] && echo "$s"
  done
  true
}
# pk_study_has STUDY HOOK: whether the study declares pk_<study>_<HOOK>.
pk_study_has() { declare -F "pk_$1_$2" >/dev/null; }
# pk_studies_with_hook HOOK: the studies that declare pk_<study>_<HOOK>, in run order.
pk_studies_with_hook() {
  local s
  for s in "${PK_STUDIES[@]}"; do pk_study_has "$s" "$1" && echo "$s"; done
  true
}
# pk_and_list WORDS...: "a", "a and b", "a, b and c".
pk_and_list() {
  local n=$#
  [ "$n" -le 1 ] && { echo "${1:-}"; return; }
  local all=("$@")
  echo "$(IFS=,; echo "${all[*]:0:n-1}" | sed 's/,/, /g') and ${all[n-1]}"
}
# pk_study_call STUDY HOOK ARGS...: the study's pk_<study>_<HOOK> ARGS, where it declares one.
pk_study_call() {
  pk_study_has "$1" "$2" || return 0
  local fn=pk_$1_$2
  shift 2
  "$fn" "$@"
}
# pk_summarize STUDY DIR TOOLS: a study's regenerate step where its summary reads its one CSV,
# DIR/STUDY/STUDY.csv, and writes beside it (nothing where DIR has no such CSV).
pk_summarize() {
  [ -f "$2/$1/$1.csv" ] || return 0
  "$3/pkbench_$1_summary" "$2/$1/$1.csv" "$2/$1" > /dev/null
}
# The tools scripts/run.sh builds for the studies it runs beyond their binaries and the
# summaries every run builds (pkbench_transfer_summary, pkbench_sync_summary, ...): the studies'
# pk_<study>_derive_targets.
pk_derive_targets() {
  local s
  for s in "$@"; do pk_study_call "$s" derive_targets; done
}
# The studies run one process per GPU (mpirun, --peer-mode ipc) wherever mpirun is found on a
# machine of two or more GPUs, as nccl-tests and every framework run NCCL and NVSHMEM (NCCL in
# one process driving every GPU read about 3x its small-message latency): the rows say
# peer_mode=ipc. --peer-mode=single (or PKBENCH_PEER_MODE=single) keeps one process.
mapfile -t PK_RANK_STUDIES < <(pk_studies_with runs_ranks)
# pk_study_peer_mode STUDY NGPU FLAGS...: the peer mode a run of STUDY gets: its --peer-mode,
# else $PKBENCH_PEER_MODE, else ipc for PK_RANK_STUDIES on 2+ GPUs where mpirun is found, else single.
pk_study_peer_mode() {
  local s=$1 n=$2 mode
  shift 2
  mode=$(pk_peer_mode_of "$@")
  if [ "$mode" = single ] && ! printf '%s\n' "$@" | grep -q -- '^--peer-mode'; then
    if [ -n "${PKBENCH_PEER_MODE:-}" ]; then
      mode=$PKBENCH_PEER_MODE
    elif [[ " ${PK_RANK_STUDIES[*]} " == *" $s "* ]] && [ "$n" -ge 2 ] && command -v mpirun >/dev/null 2>&1; then
      mode=ipc
    fi
  fi
  echo "$mode"
}
# pk_main_flags STUDY NGPU: what the main job (run.sh with no argument) passes a study on a
# machine of NGPU GPUs beyond its binary's defaults, one a line: its pk_<study>_main_flags. The
# grids themselves are the binaries' (their presets, which follow the GPU count); a study's
# main flags only name them (its main preset; on three or more GPUs its GPU-count sweep 2..N,
# one run, the scaling figure).
pk_main_flags() {
  pk_study_call "$1" main_flags "$2"
}
pk_is_study() { local s; for s in "${PK_STUDIES[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }
# Where the build puts every executable (CMAKE_RUNTIME_OUTPUT_DIRECTORY in CMakeLists.txt), and
# pkbench_$1 in it: a study (pk_bin transfer) or a tool (pk_bin tune). Read at each call: a
# script may set PKBENCH_BUILD_DIR after sourcing this file.
pk_bin_dir() { echo "$PKBENCH_BUILD_DIR/bin"; }
pk_bin() { echo "$(pk_bin_dir)/pkbench_$1"; }
# NVSHMEM, for the studies with NVSHMEM rows: the nvidia-nvshmem-cu13 wheel of python3 (or an
# install at PKBENCH_NVSHMEM_ROOT; cmake/Nvshmem.cmake finds either). Installed
# with pip from .deps/wheels (scripts/stage-deps.sh puts it there) or from PyPI where pip reaches
# it; otherwise the exact commands are named and its rows are skipped with the reason.
mapfile -t PK_NVSHMEM_STUDIES < <(pk_studies_with uses_nvshmem)
PK_NVSHMEM_WHEEL=nvidia-nvshmem-cu13
pk_nvshmem() {
  [ -n "${PKBENCH_NVSHMEM_ROOT:-}" ] && return 0
  python3 -c "import nvidia.nvshmem" 2>/dev/null && return 0
  local pip=(python3 -m pip install) wheels=$PKBENCH_ROOT/.deps/wheels
  [ "$(id -u)" = 0 ] || pip+=(--user)
  if [ "${PKBENCH_NO_INSTALL:-0}" != 1 ] && python3 -m pip --version >/dev/null 2>&1; then
    if compgen -G "$wheels/nvidia_nvshmem*.whl" >/dev/null; then
      pk_log "NVSHMEM not found: ${pip[*]} --no-index --find-links $wheels $PK_NVSHMEM_WHEEL"
      "${pip[@]}" --no-index --find-links "$wheels" "$PK_NVSHMEM_WHEEL" >&2
    elif timeout 5 getent hosts pypi.org >/dev/null 2>&1; then
      pk_log "NVSHMEM not found: ${pip[*]} $PK_NVSHMEM_WHEEL"
      "${pip[@]}" "$PK_NVSHMEM_WHEEL" >&2
    fi
    if python3 -c "import nvidia.nvshmem" 2>/dev/null; then
      # A build folder configured before the wheel came must look again.
      [ -f "$PKBENCH_BUILD_DIR/CMakeCache.txt" ] && cmake "$PKBENCH_BUILD_DIR" > /dev/null
      return 0
    fi
  fi
  pk_log "NVSHMEM not found: its rows are skipped with the reason. To bring it: ${pip[*]} $PK_NVSHMEM_WHEEL" \
    "(where pip reaches PyPI), or run scripts/stage-deps.sh where it does and carry .deps (the wheel lands in" \
    ".deps/wheels), or set PKBENCH_NVSHMEM_ROOT=<an NVSHMEM install>"
  return 1
}

pk_gpu_count() { nvidia-smi -L 2>/dev/null | grep -c '^GPU'; }

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

# The launcher for a study run in peer mode $1: nothing for single or virtual (one process drives
# every GPU, or every virtual rank), mpirun with one rank per GPU for ipc and vmm. Prints one word
# per line.
pk_launcher() {
  case "${1:-single}" in
    single|virtual) ;;
    ipc|vmm)
      local n
      n=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
      printf '%s\n' mpirun -np "${PKBENCH_RANKS:-$n}"
      [ "$(id -u)" = 0 ] && printf '%s\n' --allow-run-as-root
      # The multicast guards reach every rank; ptrace-based shared-memory copies are refused
      # in containers.
      printf '%s\n' -x NCCL_NVLS_ENABLE -x NVSHMEM_DISABLE_NVLS -x TORCH_SYMM_MEM_DISABLE_MULTICAST \
        -x CUDA_MODULE_LOADING -x PKBENCH_GIT_COMMIT --mca btl_vader_single_copy_mechanism none
      # Where a caller set them: the bootstraps' interfaces (e.g. loopback on one node) and
      # NCCL's transports (NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1: its network path, simulated
      # inter-node).
      local v
      for v in NCCL_SOCKET_IFNAME NVSHMEM_BOOTSTRAP_UID_SOCK_IFNAME NCCL_P2P_DISABLE NCCL_SHM_DISABLE; do
        [ -n "${!v:-}" ] && printf '%s\n' -x "$v"
      done
      true
      ;;
    *) echo "unknown peer mode '$1' (single, ipc, vmm, virtual)" >&2; return 2 ;;
  esac
}

# pk_launcher_lines MODE: pk_launcher's lines into the array `launcher`, its exit code kept
# (mapfile < <(...) would lose it: an unknown mode must stop the run with exit 2).
pk_launcher_lines() {
  local text
  text=$(pk_launcher "$1") || return $?
  launcher=()
  [ -n "$text" ] && mapfile -t launcher <<< "$text"
  return 0
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

# ---- Dependencies, declared once --------------------------------------------------------------
# name | found by | Debian packages | kind | what needs it
#   found by: cmd:PROGRAM (on PATH), hdr:PATH (a header under the include roots), cuda (nvcc)
#   kind: required (nothing builds without it), header (header-only: staged into .deps/include
#   without root), package (a Debian package: installed when running as root)
PK_DEPS=$(cat <<'DEPS'
cmake|cmd:cmake|cmake|required|the build
c++ compiler|cmd:g++|g++|required|the build
CUDA toolkit 13|cuda|-|required|every study (nvcc, the CUDA runtime)
ninja|cmd:ninja|ninja-build|package|faster builds (make works too)
Google Benchmark|hdr:benchmark/benchmark.h|libbenchmark-dev|package|the study binaries
GoogleTest|hdr:gtest/gtest.h|libgtest-dev|package|the tests
CLI11|hdr:CLI/CLI.hpp|libcli11-dev|header|every binary's and tool's command line (the build)
nlohmann-json|hdr:nlohmann/json.hpp|nlohmann-json3-dev|header|the tuning tables' JSON
Open MPI|cmd:mpirun|libopenmpi-dev openmpi-bin|package|one process per GPU (--peer-mode=ipc|vmm): the multi-rank studies
gnuplot|cmd:gnuplot|gnuplot-nox|package|the figures
git|cmd:git|git|package|the commit recorded in every CSV
bc|cmd:bc|bc|package|the scripts' arithmetic
DEPS
)

# Where headers are looked for (a test points this elsewhere to play a fresh machine).
pk_include_roots() { echo "${PKBENCH_DEPS_ROOTS:-/usr/include /usr/local/include $PKBENCH_ROOT/.deps/include}"; }

pk_dep_found() {  # "found by" field
  local how=$1 r
  case "$how" in
    cmd:*) command -v "${how#cmd:}" >/dev/null 2>&1 ;;
    cuda) command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] ;;
    hdr:*) for r in $(pk_include_roots); do [ -f "$r/${how#hdr:}" ] && return 0; done; return 1 ;;
    *) return 1 ;;
  esac
}

# Copies the headers of Debian packages $@ into .deps/include: from the installed package
# where there is one, else from a package downloaded (not installed; no root needed).
pk_stage_headers() {
  local dest=$PKBENCH_ROOT/.deps/include work p f
  mkdir -p "$dest"
  work=$(mktemp -d)
  for p in "$@"; do
    if dpkg -L "$p" >/dev/null 2>&1; then
      dpkg -L "$p" | grep '^/usr/include/' | while read -r f; do
        [ -f "$f" ] && install -D -m 644 "$f" "$dest/${f#/usr/include/}"
      done
    elif (cd "$work" && apt-get download "$p" >/dev/null 2>&1 && dpkg -x ./"$p"_*.deb "$work/x"); then
      cp -r "$work/x/usr/include/." "$dest/"
    else
      pk_log "could not stage $p (no apt-get download here): install it, or copy .deps from a machine with apt"
      rm -rf "$work"
      return 1
    fi
  done
  rm -rf "$work"
  if [ -d "$PKBENCH_ROOT/.git" ]; then
    grep -qx '/.deps/' "$PKBENCH_ROOT/.git/info/exclude" 2>/dev/null ||
      { mkdir -p "$PKBENCH_ROOT/.git/info"; echo '/.deps/' >> "$PKBENCH_ROOT/.git/info/exclude"; }
  fi
}

# Brings what is missing: Debian packages when running as root with apt, else the
# header-only pieces staged under .deps/; says clearly what it cannot install. Returns 1
# only when a required piece is missing. PKBENCH_DEPS_DRY_RUN=1 prints the plan only;
# PKBENCH_NO_INSTALL=1 only reports; PKBENCH_DEPS_AS_ROOT=0|1 overrides the root check.
pk_ensure_deps() {
  local missing=() pkgs=() headers=() cannot=() required_missing=() name how deb kind what
  while IFS='|' read -r name how deb kind what; do
    [ -n "$name" ] || continue
    pk_dep_found "$how" && continue
    missing+=("$name")
    case "$kind" in
      header) headers+=("$deb"); pkgs+=($deb) ;;
      package) pkgs+=($deb) ;;
      required) [ "$deb" = - ] && cannot+=("$name ($what)") || pkgs+=($deb); required_missing+=("$name") ;;
    esac
  done <<< "$PK_DEPS"
  [ ${#missing[@]} = 0 ] && return 0
  pk_log "missing here: ${missing[*]}"
  local root=0
  [ "$(id -u)" = 0 ] && root=1
  [ -n "${PKBENCH_DEPS_AS_ROOT:-}" ] && root=$PKBENCH_DEPS_AS_ROOT
  local dry=${PKBENCH_DEPS_DRY_RUN:-0} noinst=${PKBENCH_NO_INSTALL:-0}
  # Machines without a network (air-gapped GPU nodes) fail this probe at once instead of
  # waiting on apt's timeouts.
  local online=1
  [ "$dry" = 1 ] || timeout 5 getent hosts deb.debian.org >/dev/null 2>&1 || online=0
  if [ ${#pkgs[@]} -gt 0 ] && [ "$root" = 1 ] && command -v apt-get >/dev/null 2>&1 && [ "$noinst" != 1 ] && [ "$online" = 1 ]; then
    pk_log "installing as root: apt-get install -y --no-install-recommends ${pkgs[*]}"
    if [ "$dry" != 1 ]; then
      DEBIAN_FRONTEND=noninteractive timeout 600 apt-get update -qq >/dev/null &&
        DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -qq --no-install-recommends "${pkgs[@]}" >/dev/null ||
        pk_log "apt-get install failed: install by hand: apt install ${pkgs[*]}"
    fi
  elif [ "$online" = 0 ] && [ "$noinst" != 1 ]; then
    pk_log "no network here (deb.debian.org does not resolve): nothing installed; missing: ${pkgs[*]:-none} (stage headers elsewhere with scripts/stage-deps.sh and carry .deps)"
  else
    if [ ${#headers[@]} -gt 0 ] && [ "$noinst" != 1 ]; then
      pk_log "not root: staging the header-only pieces into .deps/include: ${headers[*]}"
      [ "$dry" = 1 ] || pk_stage_headers "${headers[@]}" || true
    fi
    local rest=()
    for p in "${pkgs[@]}"; do
      printf '%s\n' "${headers[@]:-}" | grep -qx -- "$p" || rest+=("$p")
    done
    [ ${#rest[@]} -gt 0 ] &&
      pk_log "cannot install without root: ${rest[*]}; run once as root (these scripts install them), or: sudo apt install ${rest[*]}"
  fi
  for c in "${cannot[@]:-}"; do
    [ -n "$c" ] && pk_log "cannot be installed by these scripts: $c: install the CUDA Toolkit 13 from NVIDIA (https://developer.nvidia.com/cuda-downloads) and put nvcc on PATH or set CUDA_HOME"
  done
  [ "$dry" = 1 ] && return 0
  # Required pieces still missing end the run here; the others disable what needs them (CMake says which).
  local still=()
  while IFS='|' read -r name how deb kind what; do
    [ "$kind" = required ] && ! pk_dep_found "$how" && still+=("$name")
  done <<< "$PK_DEPS"
  if [ ${#still[@]} -gt 0 ]; then
    pk_log "cannot build without: ${still[*]}"
    return 1
  fi
  return 0
}
