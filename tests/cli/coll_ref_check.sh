#!/usr/bin/env bash
# microbench/collectives/ref_check.sh wired end to end without a GPU: stand-ins for
# pkbench_collectives (two NCCL rows per mode) and all_reduce_perf (nccl-tests' format, its
# header saying eager or -G) check that the script passes the same sizes, dtype, iterations
# and graph mode to both (and nccl-tests' buffer shift to the study), runs both REPEATS rounds,
# merges with the real pkbench_coll_ref (medians of the rounds), and reports the ratios.
#   coll_ref_check.sh <repo root> <pkbench_coll_ref> <pkbench_collectives_summary>
set -uo pipefail
ROOT=$1
REF=$2
SUMMARY=$3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/nt"
cat > "$T/study" <<'STUDY'
#!/usr/bin/env bash
csv= ; sizes= ; iters= ; modes= ; shift_=
for a in "$@"; do
  case $a in --csv=*) csv=${a#--csv=} ;; --sizes=*) sizes=${a#--sizes=} ;; --nccltests-iters=*) iters=${a#*=} ;;
             --modes=*) modes=${a#--modes=} ;; --nccltests-shift) shift_=1 ;; esac
done
[ "$sizes" = 4K:8K ] && [ "$iters" = 7 ] && [ "$modes" = eager,graph ] && [ "$shift_" = 1 ] ||
  { echo "study got $*" >&2; exit 9; }
{
  echo "study,collective,impl,family,dtype,bytes,gpus,launch_mode,nccl_config,time_us_nccltests,ref_tool,ref_time_us,ref_ratio,status,time_us_median,time_us_p10,time_us_p90,busbw_gbps"
  echo "collectives,all_reduce,nccl,nccl,bf16,4096,1,eager,default,6.30,,,,ok,2,2,2,0"
  echo "collectives,all_reduce,nccl,nccl,bf16,8192,1,eager,default,6.60,,,,ok,2,2,2,0"
  echo "collectives,all_reduce,nccl,nccl,bf16,4096,1,graph,default,1.00,,,,ok,1,1,1,0"
  echo "collectives,all_reduce,nccl,nccl,bf16,8192,1,graph,default,1.50,,,,ok,1,1,1,0"
  # A forced configuration: its nccl_config cell as the study writes it (the CSV writer turns
  # a comma into ';', so the name must have none).
  echo "collectives,all_reduce,nccl_ll_ring,nccl,bf16,4096,1,eager,LL/Ring,6.30,,,,ok,2,2,2,0"
  echo "collectives,all_reduce,nccl_ll_ring,nccl,bf16,4096,1,graph,LL/Ring,1.00,,,,ok,1,1,1,0"
} > "$csv"
STUDY
cat > "$T/nt/all_reduce_perf" <<'TOOL'
#!/usr/bin/env bash
graph=0; n=; d=; b=; e=
while [ $# -gt 0 ]; do
  case $1 in -G) graph=$2 ;; -n) n=$2 ;; -d) d=$2 ;; -b) b=$2 ;; -e) e=$2 ;; esac
  shift 2
done
[ "$n" = 7 ] && [ "$d" = bfloat16 ] && [ "$b" = 4K ] && [ "$e" = 8K ] || { echo "tool got n=$n d=$d b=$b e=$e" >&2; exit 9; }
t1=6.00; t2=6.50
[ "$graph" = 1 ] && { t1=0.98; t2=1.10; }
echo "# nccl-tests version 2.19.6 nccl-headers=22803 nccl-library=22803"
echo "# Collective test starting: all_reduce_perf"
echo "# nThread 1 nGpus 1 minBytes 4096 maxBytes 8192 step: 2(factor) warmup iters: 1 iters: $n agg iters: 1 validation: 1 graph: $graph unalign: 0"
echo "#  Rank  0 Group  0 Pid   1 on host device  0 [0000:19:00] NVIDIA H100"
echo "#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong"
echo "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)"
echo "        4096          2048  bfloat16     sum      -1  $t1    0.63    0.00       0  $t1    0.64    0.00       0"
echo "        8192          4096  bfloat16     sum      -1  $t2    1.26    0.00       0  $t2    1.27    0.00       0"
TOOL
chmod +x "$T/study" "$T/nt/all_reduce_perf"
out=$(BIN="$T/study" REF="$REF" SUMMARY="$SUMMARY" PKBENCH_NCCL_TESTS="$T/nt" NGPUS=1 SIZES=4K:8K ITERS=7 CONFIGS=default,LL/Ring REPEATS=2 \
      bash "$ROOT/microbench/collectives/ref_check.sh" "$T/out" 2>&1)
rc=$?
echo "$out"
fail() { echo "FAIL: $*"; exit 1; }
[ $rc = 0 ] || fail "ref_check.sh exited $rc"
# eager 6.30/6.00 = 1.05, 6.60/6.50 = 1.0154; graph 1.00/0.98 = 1.0204, 1.50/1.10 = 1.3636
# The cross-check status is the sweeps' rule, printed by the collectives summary.
grep -q "Best NCCL row per point: 3 checked .*, 0 not checked, 1 off their tool" <<< "$out" || fail "cross-check counts"
grep -q "| all_reduce | bf16 | 8 KiB | graph | nccl default | off by 36.4 % (nccl-tests 2.19.6 all_reduce_perf -G 1 (median of 2 runs)) |" \
  <<< "$out" || fail "the defective row"
grep -q "^collectives,all_reduce,nccl,nccl,bf16,8192,1,graph,default,1.5,nccl-tests 2.19.6 all_reduce_perf -G 1 (median of 2 runs),1.1,1.3636,ok,1,1,1,0$" \
  "$T/out/collectives_ref.csv" || fail "merged row"
grep -q "^collectives,all_reduce,nccl_ll_ring,nccl,bf16,4096,1,graph,LL/Ring,1,nccl-tests 2.19.6 all_reduce_perf -G 1 (median of 2 runs),0.98,1.0204,ok,1,1,1,0$" \
  "$T/out/collectives_ref.csv" || fail "forced-configuration row not merged"
[ -f "$T/out/study_r2.csv" ] && [ -f "$T/out/nccltests_all_reduce_nccl_graph_r2.txt" ] || fail "two rounds of study and tool"
echo "PASS"
