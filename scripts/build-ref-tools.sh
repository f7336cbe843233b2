#!/usr/bin/env bash
# Builds the reference tools the studies cross-check their baselines against, from source
# folders you fetched yourself, into .reftools/ (ignored by git; nothing of the tools goes
# into the repository):
#   NCCL_TESTS_SRC   github.com/NVIDIA/nccl-tests  -> .reftools/nccl-tests/*_perf
#                    (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, ...)
#   NVBANDWIDTH_SRC  github.com/NVIDIA/nvbandwidth -> .reftools/nvbandwidth/nvbandwidth
#                    (needs CMake >= 3.20, Boost.program_options and nvml.h: from the system or
#                    from .deps, which scripts/stage-deps.sh fills where apt and pip work)
#   NVSHMEM_PERFTEST_SRC github.com/NVIDIA/nvshmem -> .reftools/nvshmem-perftest/shmem_*
#                    (its perftest/device/pt-to-pt/ tests against the NVSHMEM wheel; see below)
# A variable left unset uses .reftools/src/<name> when that folder exists, else skips the
# tool.
# Uses only what the GPU machines have: nvcc, nccl.h and libnccl where the system keeps them
# (/usr/include, /usr/lib/x86_64-linux-gnu) or under CUDA_HOME. MPI=1 MPI_HOME=<dir> builds
# nccl-tests with MPI (one process per GPU, as `mpirun -np N ... -g 1`).
#   scripts/build-ref-tools.sh             # then: export PKBENCH_NCCL_TESTS=$PWD/.reftools/nccl-tests
# Environment: CUDA_HOME (/usr/local/cuda), ARCH (90: sm_90), JOBS (nproc).
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=$ROOT/.reftools
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
ARCH=${ARCH:-90}
JOBS=${JOBS:-$(nproc)}
MPI=${MPI:-0}
mkdir -p "$OUTDIR"

src_of() {  # $1: variable value, $2: default folder name
  if [ -n "$1" ]; then echo "$1"; elif [ -d "$OUTDIR/src/$2" ]; then echo "$OUTDIR/src/$2"; fi
}

failed=0
built=()

NT_SRC=$(src_of "${NCCL_TESTS_SRC:-}" nccl-tests)
if [ -n "$NT_SRC" ]; then
  if [ ! -f "$NT_SRC/src/common.cu" ]; then
    echo "NCCL_TESTS_SRC=$NT_SRC: not an nccl-tests source tree (no src/common.cu)" >&2
    failed=1
  else
    mpi_args=(MPI="$MPI")
    if [ "$MPI" = 1 ]; then
      if [ -z "${MPI_HOME:-}" ]; then echo "MPI=1 needs MPI_HOME (e.g. /usr/lib/x86_64-linux-gnu/openmpi)" >&2; exit 2; fi
      mpi_args+=(MPI_HOME="$MPI_HOME")
    fi
    echo "== nccl-tests from $NT_SRC (sm_$ARCH, MPI=$MPI) -> $OUTDIR/nccl-tests"
    # NCCL_HOME stays unset: nccl.h and libnccl come from the system paths or CUDA_HOME.
    if make -C "$NT_SRC/src" -j"$JOBS" BUILDDIR="$OUTDIR/nccl-tests" CUDA_HOME="$CUDA_HOME" \
        NVCC_GENCODE="-gencode=arch=compute_${ARCH},code=sm_${ARCH}" "${mpi_args[@]}" build \
        > "$OUTDIR/nccl-tests.build.log" 2>&1; then
      built+=("nccl-tests: $OUTDIR/nccl-tests (export PKBENCH_NCCL_TESTS=$OUTDIR/nccl-tests)")
    else
      echo "nccl-tests build failed; last lines of $OUTDIR/nccl-tests.build.log:" >&2
      tail -20 "$OUTDIR/nccl-tests.build.log" >&2
      failed=1
    fi
  fi
fi

NB_SRC=$(src_of "${NVBANDWIDTH_SRC:-}" nvbandwidth)
# nvbandwidth's needs, each from the system where it is installed, else from .deps
# (scripts/stage-deps.sh): Boost.program_options, static (Debian libboost-program-options-dev;
# staged: .deps/boost), nvml.h (the CUDA toolkit's, or PyPI nvidia-nvml-dev; staged: .deps/nvml),
# and for linking where no driver is installed libcuda.so (the toolkit's stubs/) and
# libnvidia-ml.so (the toolkit's stubs/ where it has one, else a stub made here from nvml.h's
# declarations: only the link needs it; the driver's library loads at run time).
nb_deps() {
  local deps=$ROOT/.deps nvml_dir="" stubs=$OUTDIR/stubs
  NB_CMAKE=() NB_INC="" NB_LINK=""
  if [ ! -f /usr/include/boost/program_options.hpp ] && [ -f "$deps/boost/include/boost/program_options.hpp" ]; then
    NB_CMAKE+=(-DBOOST_ROOT="$deps/boost" -DBoost_NO_BOOST_CMAKE=ON -DBoost_NO_SYSTEM_PATHS=ON)
  elif [ ! -f /usr/include/boost/program_options.hpp ]; then
    echo "nvbandwidth needs Boost.program_options: apt install libboost-program-options-dev, or run" \
      "scripts/stage-deps.sh where apt works and carry .deps" >&2
    return 1
  fi
  for d in "$CUDA_HOME/include" /usr/include "$deps/nvml"; do
    [ -f "$d/nvml.h" ] && { nvml_dir=$d; break; }
  done
  [ -n "$nvml_dir" ] || { echo "nvbandwidth needs nvml.h: pip download nvidia-nvml-dev (scripts/stage-deps.sh stages it)" >&2; return 1; }
  NB_INC="-I$nvml_dir"
  # Link-time libraries: the driver's where installed, else stubs.
  local have_cuda=0 have_ml=0
  for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib; do
    [ -e "$d/libcuda.so" ] && have_cuda=1
    [ -e "$d/libnvidia-ml.so" ] && have_ml=1
  done
  [ $have_cuda = 1 ] || NB_LINK+=" -L$CUDA_HOME/lib64/stubs"
  if [ $have_ml = 0 ]; then
    if [ -e "$CUDA_HOME/lib64/stubs/libnvidia-ml.so" ]; then
      NB_LINK+=" -L$CUDA_HOME/lib64/stubs"
    else
      mkdir -p "$stubs"
      # Every nvml* function nvml.h declares, as a stub returning NVML_ERROR_UNKNOWN (999);
      # soname libnvidia-ml.so.1, the driver's, which is what loads at run time.
      grep -oE '\bnvml[A-Za-z0-9_]+[[:space:]]*\(' "$nvml_dir/nvml.h" | tr -d '( \t' | sort -u |
        awk '{ printf "int %s(void) { return 999; }\n", $1 }' > "$stubs/nvml_stub.c"
      gcc -shared -fPIC -o "$stubs/libnvidia-ml.so" -Wl,-soname,libnvidia-ml.so.1 "$stubs/nvml_stub.c" ||
        { echo "could not make the NVML link stub" >&2; return 1; }
      NB_LINK+=" -L$stubs"
    fi
  fi
}
if [ -n "$NB_SRC" ]; then
  echo "== nvbandwidth from $NB_SRC (sm_$ARCH) -> $OUTDIR/nvbandwidth"
  if [ ! -f "$NB_SRC/nvbandwidth.cpp" ]; then
    echo "NVBANDWIDTH_SRC=$NB_SRC: not an nvbandwidth source tree (no nvbandwidth.cpp)" >&2
    failed=1
  elif ! nb_deps; then
    failed=1
  elif cmake -S "$NB_SRC" -B "$OUTDIR/build/nvbandwidth" -DCMAKE_BUILD_TYPE=Release \
        -DCMAKE_CUDA_ARCHITECTURES="$ARCH" -DCMAKE_CUDA_COMPILER="$CUDA_HOME/bin/nvcc" \
        -DCMAKE_CXX_FLAGS="$NB_INC" -DCMAKE_CUDA_FLAGS="$NB_INC" -DCMAKE_EXE_LINKER_FLAGS="$NB_LINK" \
        ${NB_CMAKE[@]+"${NB_CMAKE[@]}"} > "$OUTDIR/nvbandwidth.build.log" 2>&1 &&
     cmake --build "$OUTDIR/build/nvbandwidth" -j"$JOBS" >> "$OUTDIR/nvbandwidth.build.log" 2>&1; then
    mkdir -p "$OUTDIR/nvbandwidth"
    cp "$OUTDIR/build/nvbandwidth/nvbandwidth" "$OUTDIR/nvbandwidth/"
    built+=("nvbandwidth: $OUTDIR/nvbandwidth/nvbandwidth (export PKBENCH_NVBANDWIDTH=$OUTDIR/nvbandwidth/nvbandwidth)")
  else
    echo "nvbandwidth build failed; last lines of $OUTDIR/nvbandwidth.build.log:" >&2
    tail -20 "$OUTDIR/nvbandwidth.build.log" >&2
    failed=1
  fi
fi

# NVSHMEM's perftests (perftest/device/pt-to-pt/ of github.com/NVIDIA/nvshmem; NVSHMEM_PERFTEST_SRC
# = that repository's root) against the NVSHMEM this project builds with (PKBENCH_NVSHMEM_ROOT, else
# the nvidia-nvshmem-cu13 wheel of python3: its include/, lib/libnvshmem_device.a and
# libnvshmem_host.so.3): each test compiled by hand as its CMake would (nvcc -rdc with its
# common/utils.cu; MPI bootstrap, run under mpirun -np 2; nvml.h and the NVML/CUDA link stubs as
# for nvbandwidth). PT_TESTS: which tests (default below).
PT_SRC=$(src_of "${NVSHMEM_PERFTEST_SRC:-}" nvshmem)
if [ -n "$PT_SRC" ]; then
  PT_TESTS=${PT_TESTS:-"shmem_p_latency shmem_put_latency shmem_g_latency shmem_signal_ping_pong_latency shmem_put_signal_ping_pong_latency shmem_put_bw"}
  NVSHMEM_DIR=${PKBENCH_NVSHMEM_ROOT:-$(python3 -c "import nvidia.nvshmem as m; print(m.__path__[0])" 2>/dev/null)}
  MPI_INC=$(mpicc --showme:incdirs 2>/dev/null | awk '{print $1}')
  MPI_LIBDIR=$(mpicc --showme:libdirs 2>/dev/null | awk '{print $1}')
  echo "== NVSHMEM perftests from $PT_SRC against ${NVSHMEM_DIR:-?} (sm_$ARCH) -> $OUTDIR/nvshmem-perftest"
  if [ ! -f "$PT_SRC/perftest/common/utils.cu" ]; then
    echo "NVSHMEM_PERFTEST_SRC=$PT_SRC: not the NVSHMEM repository (no perftest/common/utils.cu)" >&2
    failed=1
  elif [ -z "$NVSHMEM_DIR" ] || [ ! -f "$NVSHMEM_DIR/include/nvshmem.h" ]; then
    echo "NVSHMEM not found: pip install nvidia-nvshmem-cu13, or set PKBENCH_NVSHMEM_ROOT" >&2
    failed=1
  elif [ -z "$MPI_INC" ]; then
    echo "the NVSHMEM perftests' MPI bootstrap needs mpicc (libopenmpi-dev)" >&2
    failed=1
  elif nb_deps; then
    mkdir -p "$OUTDIR/nvshmem-perftest"
    : > "$OUTDIR/nvshmem-perftest.build.log"
    for t in $PT_TESTS; do
      # shellcheck disable=SC2086  # NB_INC and NB_LINK are flag lists
      if "$CUDA_HOME/bin/nvcc" -std=c++17 -O2 -rdc=true -gencode="arch=compute_$ARCH,code=sm_$ARCH" \
          -DNVSHMEMTEST_MPI_SUPPORT -I"$NVSHMEM_DIR/include" -I"$PT_SRC/perftest/common" -I"$MPI_INC" $NB_INC \
          "$PT_SRC/perftest/common/utils.cu" "$PT_SRC/perftest/device/pt-to-pt/$t.cu" \
          -L"$NVSHMEM_DIR/lib" -lnvshmem_device -l:libnvshmem_host.so.3 -Xlinker -rpath="$NVSHMEM_DIR/lib" \
          $NB_LINK -lcuda -lnvidia-ml -L"$MPI_LIBDIR" -lmpi -Xlinker -rpath="$MPI_LIBDIR" -o "$OUTDIR/nvshmem-perftest/$t" \
          >> "$OUTDIR/nvshmem-perftest.build.log" 2>&1; then
        built+=("NVSHMEM perftest $t: $OUTDIR/nvshmem-perftest/$t (mpirun -np 2 ... $t)")
      else
        echo "NVSHMEM perftest $t failed; last lines of $OUTDIR/nvshmem-perftest.build.log:" >&2
        tail -20 "$OUTDIR/nvshmem-perftest.build.log" >&2
        failed=1
      fi
    done
  else
    failed=1
  fi
fi

if [ ${#built[@]} -eq 0 ] && [ $failed = 0 ]; then
  echo "nothing to build: set NCCL_TESTS_SRC / NVBANDWIDTH_SRC, or place the sources in $OUTDIR/src/<name>" >&2
  exit 2
fi
for b in "${built[@]}"; do echo "built $b"; done
exit $failed
