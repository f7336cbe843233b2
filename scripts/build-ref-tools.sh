#!/usr/bin/env bash
# Builds the reference tools the studies cross-check their baselines against, from source
# folders you fetched yourself, into .reftools/ (ignored by git; nothing of the tools goes
# into the repository):
#   NCCL_TESTS_SRC   github.com/NVIDIA/nccl-tests  -> .reftools/nccl-tests/*_perf
#                    (all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf, ...)
#   NVBANDWIDTH_SRC  github.com/NVIDIA/nvbandwidth -> .reftools/nvbandwidth/nvbandwidth
#                    (needs CMake >= 3.20, Boost.program_options and nvml.h: from the system or
#                    from .deps, which scripts/stage-deps.sh fills where apt and pip work)
# A variable left unset uses .reftools/src/<name> when that folder exists, else skips the
# tool. NVSHMEM's perftests (NVSHMEM_PERFTEST_SRC) are not built by this script yet.
# Uses only what the GPU machines have: nvcc, nccl.h and libnccl where the system keeps them
# (/usr/include, /usr/lib/x86_64-linux-gnu) or under CUDA_HOME. MPI=1 MPI_HOME=<dir> builds
# nccl-tests with MPI (one process per GPU, as `mpirun -np N ... -g 1`).
#   scripts/build-ref-tools.sh             # then: export PKBENCH_NCCL_TESTS=$PWD/.reftools/nccl-tests
# Environment: CUDA_HOME (/usr/local/cuda), ARCH (90: sm_90), JOBS (nproc).
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

if [ -n "${NVSHMEM_PERFTEST_SRC:-}" ]; then
  echo "NVSHMEM_PERFTEST_SRC: this script does not build NVSHMEM's perftests yet" >&2
  failed=1
fi

if [ ${#built[@]} -eq 0 ] && [ $failed = 0 ]; then
  echo "nothing to build: set NCCL_TESTS_SRC / NVBANDWIDTH_SRC, or place the sources in $OUTDIR/src/<name>" >&2
  exit 2
fi
for b in "${built[@]}"; do echo "built $b"; done
exit $failed
