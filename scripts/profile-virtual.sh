#!/usr/bin/env bash
# Nsight Compute over virtual ranks (issue 20), on ONE lent GPU, carrying .deps:
#   bash scripts/profile-virtual.sh            # from the root of a clean `git archive`
# Kernel replay (ncu's default) runs one kernel at a time, and a virtual rank's kernel spins on
# its peer's signals, so it never ends; range replay profiles everything queued between
# cudaProfilerStart and cudaProfilerStop as one workload, concurrently. PKBENCH_PROFILER_RANGE=1
# (microbench/harness/timing.h) makes each point's first timed sample such a range. Profiled:
#   fused        the reduction communicator alone: gemm_rs and gemm_ar, inter_sm, K = 64,
#                4 comm SMs, 2 virtual ranks (microbench/fused/device-comm-virtual.sh's point)
#   collectives  mid-size all-reduce, ours only (one_shot, two_shot_push, two_shot_tma), 1, 4
#                and 16 MiB, bf16, eager, 2 virtual ranks
# Each is first run without the profiler (the same points' timings), then under
# `ncu --replay-mode $PROFILE_REPLAY` (range; app-range reruns the whole program once per pass
# and is tried when range fails). Metrics are for the whole GPU over the range: both ranks, the
# start gate and every operation of the sample (its count is on stderr: "profiler range N").
# Clocks are left alone (--clock-control none). Everything lands in $OUT/profile-virtual.tgz;
# each target's details page is also in $OUT/<target>_details.csv.
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
export CUDA_DEVICE_MAX_CONNECTIONS=32  # virtual ranks: the tests' setting (peer_group.h)
B=${PROFILE_BUILD_DIR:-/tmp/pk-profile-build}
W=${PROFILE_WORK_DIR:-/tmp/profile-virtual}
out=${OUT:-/tmp/pk-profile-out}
targets=${PROFILE_TARGETS:-fused collectives}
replays=${PROFILE_REPLAY:-range app-range}
rm -rf "$W"
mkdir -p "$W" "$out"
t0=$(date +%s)
stamp() { echo "[$(($(date +%s) - t0))s] $*" | tee -a "$W/steps.log"; }
pack() { tar -C "$(dirname "$W")" -czf "$out/profile-virtual.tgz" --exclude='*.ncu-rep' "$(basename "$W")"; }
trap pack EXIT
trap 'exit 143' TERM INT  # a timeout still packs what there is

NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
{ "$NCU" --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv; } >"$W/environment.txt" 2>&1
stamp "ncu: $NCU"
# What this ncu's own manual says about range replay (the evidence for the method).
guide=$(find "$(dirname "$(readlink -f "$NCU")")" /opt/nvidia /usr/local/cuda/ -path '*ProfilingGuide/index.html' 2>/dev/null | head -1)
[ -n "$guide" ] && python3 - "$guide" >"$W/ncu_guide_range_replay.txt" 2>&1 <<'PY'
import html, re, sys
text = html.unescape(re.sub(r"<[^>]+>", " ", open(sys.argv[1], encoding="utf-8", errors="replace").read()))
text = re.sub(r"[ \t]+", " ", text)
spans = [(m.start(), m.start() + 4000) for m in re.finditer(r"(?i)range replay|green context|supported apis", text)]
end = -1
for a, b in spans:
    if a > end:
        print("----\n" + text[a:b])
        end = b
PY

cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release -DPKBENCH_CUDA_ARCHS=90a -DPKBENCH_DEPS_DIR="$PWD/.deps" \
  "-DPKBENCH_STUDIES=gemm;fused;collectives" >"$W/configure.log" 2>&1 || { tail -20 "$W/configure.log"; exit 1; }
timeout 260 cmake --build "$B" -j16 --target pkbench_fused pkbench_collectives >"$W/build.log" 2>&1 ||
  { grep -m20 -A5 error "$W/build.log"; exit 1; }
stamp built
bin() { find "$B" -name "$1" -type f -perm -u+x | head -1; }

# The sections that hold throughput, memory and warp-state metrics, none of which needs a
# single kernel's launch (range results have no grid); achieved occupancy and the raw volumes
# named besides.
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats)
metrics=gpu__time_duration.sum,sm__warps_active.avg.pct_of_peak_sustained_active,sm__cycles_active.avg
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum,smsp__inst_executed.sum

command_of() {  # TARGET: the study's command line (flags only, --csv appended by the caller)
  case $1 in
    fused) echo "$(bin pkbench_fused) --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm" \
      "--shapes=4096x4096x64 --comm-sms=4 --samples=3" ;;
    collectives) echo "$(bin pkbench_collectives) --peer-mode=virtual --ranks=2 --collectives=all_reduce" \
      "--dtypes=bf16 --modes=eager --impls=one_shot,two_shot_push,two_shot_tma --sizes=1M,4M,16M --samples=3" ;;
  esac
}

for t in $targets; do
  cmd=$(command_of "$t")
  echo "PKBENCH_PROFILER_RANGE=1 $cmd --csv=${t}_unprofiled.csv" >>"$W/command.txt"
  PKBENCH_PROFILER_RANGE=1 timeout 120 $cmd --csv="$W/${t}_unprofiled.csv" >"$W/${t}_unprofiled.log" 2>&1
  stamp "$t unprofiled: rc=$? $(grep -c 'profiler range' "$W/${t}_unprofiled.log") ranges announced"
  for replay in $replays; do
    limit=200; [ "$replay" = range ] && limit=150
    ncu_args=(--replay-mode "$replay" --clock-control none "${sections[@]}" --metrics "$metrics")
    echo "PKBENCH_PROFILER_RANGE=1 ncu ${ncu_args[*]} -f -o ${t}_$replay $cmd --csv=${t}_$replay.csv" >>"$W/command.txt"
    PKBENCH_PROFILER_RANGE=1 timeout "$limit" "$NCU" "${ncu_args[@]}" -f -o "$W/${t}_$replay" $cmd --csv="$W/${t}_$replay.csv" \
      >"$W/${t}_$replay.log" 2>&1
    rc=$?
    stamp "$t ncu $replay: rc=$rc $(grep -m3 -E '==(ERROR|WARNING)==' "$W/${t}_$replay.log" | tr '\n' ' ' | cut -c1-300)"
    if [ -f "$W/${t}_$replay.ncu-rep" ]; then
      "$NCU" -i "$W/${t}_$replay.ncu-rep" --csv --page details >"$W/${t}_${replay}_details.csv" 2>&1
      "$NCU" -i "$W/${t}_$replay.ncu-rep" --csv --page raw >"$W/${t}_${replay}_raw.csv" 2>&1
      "$NCU" -i "$W/${t}_$replay.ncu-rep" --page details >"$W/${t}_${replay}_details.txt" 2>&1
      if [ "$(grep -c . "$W/${t}_${replay}_details.csv")" -gt 1 ]; then
        cp "$W/${t}_${replay}_details.csv" "$out/${t}_details.csv"
        stamp "$t: $replay replay gave $(($(grep -c . "$W/${t}_${replay}_details.csv") - 1)) metric rows"
        break
      fi
    fi
  done
done
