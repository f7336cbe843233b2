#!/usr/bin/env bash
# layering.sh SOURCE_DIR: the layers kernels <- microbench/harness <- microbench/<study> <- sweeps
# (<- scripts), nothing pointing back, read from the include lines and the CMake links:
#   kernels/             includes kernels/ only
#   microbench/harness/  kernels/ and itself (no study, no sweeps/)
#   microbench/<study>/  kernels/, the harness and itself (no other study, no sweeps/)
#   sweeps/              the harness, the studies (their schemas) and itself
#   tuning/              nothing of the repository (it is installed alone)
# and no CMake file under microbench/ links the sweeps. Includes are written from the root: a
# relative one (../x.h, or a bare name of a file beside the includer) is reported too.
# Prints each offending line and exits 1; 0 when the layers hold.
set -uo pipefail
src=${1:?usage: layering.sh SOURCE_DIR}
cd "$src" || exit 2

# Study-on-study includes that are the design (FROM TO), each with its reason.
cross_study=(
  "fused gemm"      # the fused kernels are this suite's GEMM: microbench/fused builds on microbench/gemm
  "fused transfer"  # the cost model asks the transfer registry which mechanisms run on SMs
  "ep gemm"         # the expert GEMM is this suite's GEMM (microbench/gemm/gemm_launch.cuh)
  "seqpar gemm"     # the ring's stand-in is this suite's GEMM (microbench/gemm/gemm_launch.cuh)
  "seqpar collectives"  # Ulysses' collectives are the collectives study's (its registry and presets)
)

layer_of() {  # a repository path -> its layer (empty: not a layered folder)
  case "$1" in
    kernels/*) echo kernels ;;
    microbench/harness/*) echo harness ;;
    microbench/*/*) local s=${1#microbench/}; echo "study:${s%%/*}" ;;
    sweeps/*) echo sweeps ;;
    tuning/*) echo tuning ;;
    tests/*|examples/*|scripts/*) echo other ;;
  esac
}

allowed() {  # FROM_LAYER TO_LAYER
  local from=$1 to=$2 pair
  [ "$from" = "$to" ] && return 0
  case "$from" in
    kernels|tuning) return 1 ;;
    harness) [ "$to" = kernels ] ;;
    study:*)
      case "$to" in
        kernels|harness) return 0 ;;
        study:*) for pair in "${cross_study[@]}"; do [ "$pair" = "${from#study:} ${to#study:}" ] && return 0; done; return 1 ;;
        *) return 1 ;;
      esac ;;
    sweeps) case "$to" in harness|study:*) return 0 ;; *) return 1 ;; esac ;;
    *) return 0 ;;
  esac
}

fail=0 n=0
while IFS= read -r file; do
  from=$(layer_of "$file")
  while IFS=: read -r line inc; do
    n=$((n + 1))
    if [[ "$inc" == *../* || ( "$inc" != */* && -f "$(dirname "$file")/$inc" ) ]]; then
      echo "$file:$line: #include \"$inc\": relative; write it from the repository root"
      fail=1
      continue
    fi
    to=$(layer_of "$inc")
    [ -n "$to" ] || continue  # a system, package or generated header (pkbench/tuning.h, study_registry.inc)
    allowed "$from" "$to" || { echo "$file:$line: #include \"$inc\": $from may not include $to"; fail=1; }
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' "$file" |
           sed -E 's/^([0-9]+):.*include[[:space:]]*["<]([^">]+)[">].*/\1:\2/')
done < <(find kernels microbench sweeps tuning -type f \( -name '*.h' -o -name '*.hpp' -o -name '*.cuh' -o -name '*.cu' \
           -o -name '*.cpp' -o -name '*.cc' -o -name '*.inc' \) | sort)

# The studies' and the harness's CMake files never link the sweeps.
while IFS=: read -r file line _; do
  echo "$file:$line: links pkbench_sweeps: a study or the harness may not depend on the sweeps"
  fail=1
done < <(grep -rn --include=CMakeLists.txt --include='*.cmake' -E 'target_link_libraries\(.*\bpkbench_sweeps\b' microbench)

[ "$n" -gt 0 ] || { echo "FAILED: no include line found under $src (is the scan broken?)"; exit 1; }
[ "$fail" = 0 ] && echo "layers hold: $n include lines checked"
exit "$fail"
