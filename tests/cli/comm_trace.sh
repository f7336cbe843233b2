#!/usr/bin/env bash
# microbench/fused/comm-trace.py on synthetic logs (no GPU): the per-phase medians of one rank's
# CTP/CTU stamps, computed by hand below; a log without stamps exits 1 naming it; a missing log
# exits 2 with one line (no traceback, no table header); no argument exits 2.
#   comm_trace.sh SCRIPT   (microbench/fused/comm-trace.py)
set -uo pipefail
script=${1:?path of microbench/fused/comm-trace.py}
command -v python3 >/dev/null || { echo "SKIPPED: no python3"; exit 77; }
source "$(dirname "$0")/check_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# Rank 0, three pieces (producer issued, full seen, sum done, stage freed) and three units (flag
# acquire before, after), amid the study's other output. By hand:
#   cycles/piece (1030 - 0) / 3 = 343.3 -> 343
#   wait  400 - 350 = 50, 760 - 700 = 60        -> median 55 (the mean of the middle two)
#   sum   200, 250, 200                         -> 200
#   store 50, 50, 70                            -> 50
#   load  100, 280, 380                         -> 280
#   flag  30, 90, 25                            -> 30
cat > "$T/trace.log" <<'EOF'
Running build/bin/pkbench_fused
CTH rank=0 world=2 blocks=4 units=3 pieces=3 stages=6 rows=16
CTU 0 0 10 40
CTU 0 1 500 590
CTU 0 2 900 925
CTP 0 0 0 100 300 350
CTP 0 1 120 400 650 700
CTP 0 2 380 760 960 1030
fused,gemm_rs,inter_sm,ok
EOF
printf 'Running build/bin/pkbench_fused\nfused,gemm_rs,inter_sm,ok\n' > "$T/plain.log"

check medians 0 "^\| $T/trace.log \| 0 \| 3 \| 343 \| 55 \| 200 \| 50 \| 280 \| 30 \|$" python3 "$script" "$T/trace.log"
check header 0 "^\| log \| rank \| pieces \| cycles/piece \| wait \| sum \| store \| load \| flag \|$" \
  python3 "$script" "$T/trace.log"
check no_stamps 1 "$T/plain.log: no CTP stamps" python3 "$script" "$T/plain.log"
CHECK_MAX_CHARS=200 check missing_file 2 "^comm-trace.py: $T/absent.log: No such file or directory$" \
  python3 "$script" "$T/absent.log"
# The one line is all: nothing else printed (no header, no traceback) when a later log is missing.
CHECK_MAX_CHARS=200 check missing_after_good 2 "^comm-trace.py: $T/absent.log: " \
  python3 "$script" "$T/trace.log" "$T/absent.log"
printf 'CTP 0 0 1 2 x 4\n' > "$T/malformed.log"
CHECK_MAX_CHARS=200 check malformed 2 "^comm-trace.py: $T/malformed.log: a stamp line that is not CTP/CTU integers" \
  python3 "$script" "$T/malformed.log"
check no_argument 2 "Usage: microbench/fused/comm-trace.py LOG" python3 "$script"
exit $((fails > 0))
