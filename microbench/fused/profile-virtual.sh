#!/usr/bin/env bash
# Nsight Compute over virtual ranks (issue 20), on one GPU:
#   bash microbench/fused/profile-virtual.sh [OUT_DIR]  # from the repository root (default OUT_DIR: /tmp/pk-profile-out)
# Kernel replay (ncu's default) runs one kernel at a time, and a virtual rank's kernel spins on
# its peer's signals, so it never ends; range replay (and app-range, which reruns the whole
# program once per pass instead of capturing and replaying the range) profiles everything
# queued between cudaProfilerStart and cudaProfilerStop as one workload, concurrently.
# PKBENCH_PROFILER_RANGE=1 (microbench/harness/timing.h) makes each point's first timed sample
# such a range. Profiled, each first without the profiler (the same points' timings):
#   fused        the reduction communicator alone: gemm_rs and gemm_ar, inter_sm, K = 64,
#                4 and 16 comm SMs, 2 virtual ranks (the communicator-only points), range
#                replay with the full sections (app-range with the lean ones ran out of 150 s:
#                14 passes, each a whole run of the program)
#   collectives  mid-size all-reduce, ours only (one_shot, two_shot_push, two_shot_tma), 1, 4
#                and 16 MiB, bf16, eager, 2 virtual ranks, app-range replay (a captured range
#                replays its launches slower than they ran: short operations' ranges stretch)
# A range's SM counters cover the green context current at cudaProfilerStart (one rank's SMs);
# DRAM and L2 counters sum over every green context (ncu says so in each result). The range
# holds the start gate and every operation of the sample (its count is on stderr: "profiler
# range N"). Clocks are left alone (--clock-control none). Everything lands in
# OUT_DIR/profile-virtual.tgz, each result's raw page also in OUT_DIR/<target>_<replay>_raw.csv.
# PROFILE_SECONDS (default 390) bounds the whole script.
case "${1:-}" in -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;; esac  # --help first: the comment above
set -uo pipefail
export NCCL_NVLS_ENABLE=0 NVSHMEM_DISABLE_NVLS=1 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 CUDA_MODULE_LOADING=EAGER
export CUDA_DEVICE_MAX_CONNECTIONS=32  # virtual ranks: the tests' setting (peer_group.h)
B=${PROFILE_BUILD_DIR:-/tmp/pk-profile-build}
W=${PROFILE_WORK_DIR:-/tmp/profile-virtual}
case "${1:-}" in -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;; -*) echo "profile-virtual.sh: error: unknown option '$1'" >&2; exit 2 ;; esac
out=${1:-/tmp/pk-profile-out}
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
bin() { echo "$B/bin/$1"; }  # every executable in the build's bin/ (pk_bin's layout)

# Sections: throughput, memory and warp state, none of which needs one kernel's launch (a
# range has no grid of its own). "lean" is what app-range replays (the whole program runs once
# per pass): Speed Of Light and warp state only.
full=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats)
lean=(--section SpeedOfLight --section WarpStateStats)
# Named metrics: the volumes of the range, then the busiest sub-partition's (.max) stall
# counters, issue and data: over a fused range, the few communicator SMs work for the whole
# range and the GEMM's SMs only briefly, so the maxima are the communicator's while the
# averages mix both. Names this ncu does not know are dropped (ncu --query-metrics), not fatal.
volumes=(gpu__time_duration.sum sm__warps_active.avg.pct_of_peak_sustained_active sm__cycles_active.avg
  sm__cycles_active.max sm__cycles_elapsed.max dram__bytes_read.sum dram__bytes_write.sum lts__t_bytes.sum
  smsp__inst_executed.sum smsp__inst_executed.max smsp__issue_active.max smsp__cycles_active.max smsp__warps_active.max
  l1tex__m_xbar2l1tex_read_bytes.sum l1tex__m_xbar2l1tex_read_bytes.max l1tex__m_l1tex2xbar_write_bytes.max
  smsp__inst_executed_op_shared_ld.max smsp__inst_executed_op_shared_st.max sm__pipe_tma_cycles_active.max)
for r in barrier branch_resolving dispatch_stall drain gmma imc_miss lg_throttle long_scoreboard math_pipe_throttle \
  membar mio_throttle misc no_instruction not_selected selected short_scoreboard sleeping wait; do
  volumes+=("smsp__warps_issue_stalled_$r.max" "smsp__warps_issue_stalled_$r.sum")
done
"$NCU" --query-metrics >"$W/query_metrics.txt" 2>&1
metrics=$(for m in "${volumes[@]}"; do grep -Eq "^[[:space:]]*${m%%.*}[[:space:]]" "$W/query_metrics.txt" && echo "$m"; done | paste -sd,)
metrics=${metrics:-gpu__time_duration.sum}
stamp "metrics kept: $(echo "$metrics" | tr ',' '\n' | grep -c .) of ${#volumes[@]}"

command_of() {  # TARGET: the study's command line (--csv appended by the caller)
  case $1 in
    fused) echo "$(bin pkbench_fused) --peer-mode=virtual --ranks=2 --ops=gemm_rs,gemm_ar --schedules=inter_sm" \
      "--shapes=4096x4096x64 --comm-sms=4,16 --samples=3" ;;
    collectives) echo "$(bin pkbench_collectives) --peer-mode=virtual --ranks=2 --collectives=all_reduce" \
      "--dtypes=bf16 --modes=eager --impls=one_shot,two_shot_push,two_shot_tma --sizes=1M,4M,16M --samples=3" ;;
  esac
}
left() { echo $((${PROFILE_SECONDS:-390} - $(date +%s) + t0)); }  # what is left of PROFILE_SECONDS

unprofiled() {  # TARGET
  local cmd; cmd=$(command_of "$1")
  echo "PKBENCH_PROFILER_RANGE=1 $cmd --csv=$1_unprofiled.csv" >>"$W/command.txt"
  PKBENCH_PROFILER_RANGE=1 timeout 120 $cmd --csv="$W/$1_unprofiled.csv" >"$W/$1_unprofiled.log" 2>&1
  stamp "$1 unprofiled: rc=$? $(grep -c 'profiler range' "$W/$1_unprofiled.log") ranges announced"
}
profile() {  # TARGET REPLAY SECTIONS(full|lean) LIMIT_S
  local t=$1 replay=$2 name=$1_$2 cmd limit; cmd=$(command_of "$t")
  local -n sec=$3
  limit=$(($4 < $(left) ? $4 : $(left)))
  [ "$limit" -gt 20 ] || { stamp "$name: skipped, ${limit}s left"; return; }
  local args=(--replay-mode "$replay" --clock-control none "${sec[@]}" --metrics "$metrics")
  echo "PKBENCH_PROFILER_RANGE=1 ncu ${args[*]} -f -o $name $cmd --csv=$name.csv" >>"$W/command.txt"
  PKBENCH_PROFILER_RANGE=1 timeout "$limit" "$NCU" "${args[@]}" -f -o "$W/$name" $cmd --csv="$W/$name.csv" >"$W/$name.log" 2>&1
  stamp "$name: rc=$? $(grep -E -m1 'passes' "$W/$name.log") $(grep -m3 -E '==ERROR==' "$W/$name.log" | tr '\n' ' ' | cut -c1-300)"
  [ -f "$W/$name.ncu-rep" ] || return
  "$NCU" -i "$W/$name.ncu-rep" --csv --print-units base --page raw >"$W/${name}_raw.csv" 2>&1
  "$NCU" -i "$W/$name.ncu-rep" --print-units base --page details >"$W/${name}_details.txt" 2>&1
  cp "$W/${name}_raw.csv" "$out/"
}

unprofiled fused
profile fused range full 120
unprofiled collectives
profile collectives app-range lean 150
