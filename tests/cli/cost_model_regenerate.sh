#!/usr/bin/env bash
# pkbench_cost_model --regenerate (what scripts/regenerate.sh runs for the fused study) on results
# folders built from the model's fixtures: it pairs each fused CSV with its communicator-only rows
# (fused/cost_model_inputs.txt, else the named file where present, else none where none is needed),
# writes what a direct run with the same paths prints and writes, skips with the reason where an
# input is missing, and refuses a malformed pairing line.
#   cost_model_regenerate.sh PKBENCH_COST_MODEL FIXTURES_DIR
set -uo pipefail
model=${1:?the built pkbench_cost_model}
fx=${2:?the fixtures folder}
source "$(dirname "$0")/check_lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# folder NAME FUSED_FIXTURE [COMM_FIXTURE]: a results folder with this machine's ceilings.
folder() {
  local d=$T/$1
  mkdir -p "$d/fused" "$d/transfer" "$d/sync"
  cp "$fx/fused_transfer.csv" "$d/transfer/transfer.csv"
  cp "$fx/fused_sync.csv" "$d/sync/sync.csv"
  cp "$fx/fused_gemm.csv" "$d/fused/gemm.csv"
  cp "$fx/$2" "$d/fused/fused.csv"
  [ -z "${3:-}" ] || cp "$fx/$3" "$d/fused/comm.csv"
  echo "$d"
}

d=$(folder paired fused_points.csv fused_comm_only.csv)
check "paired: exit 0" 0 "^$" "$model" --regenerate "$d" --comm-only-name comm.csv
mkdir -p "$T/direct"
"$model" --fused "$d/fused/fused.csv" --comm-only "$d/fused/comm.csv" --transfer "$d/transfer/transfer.csv" \
  --sync "$d/sync/sync.csv" --gemm "$d/fused/gemm.csv" --out "$T/direct/model.csv" --splits "$T/direct/splits.csv" \
  > "$T/direct/model.txt"
check "paired: the printed model is a direct run's" 0 "" cmp "$d/fused/fused_model.txt" "$T/direct/model.txt"
check "paired: the model CSV is a direct run's" 0 "" cmp "$d/fused/fused_model.csv" "$T/direct/model.csv"
check "paired: the splits CSV is a direct run's" 0 "" cmp "$d/fused/fused_splits.csv" "$T/direct/splits.csv"
check "paired: the communicator's rows were read" 0 "communicator-only rows' " cat "$d/fused/fused_model.txt"
check "paired: no temporary file left" 1 "" test -e "$d/fused/fused_model.txt.tmp"
check "a trailing slash is the same folder" 0 "^$" "$model" --regenerate "$d/" --comm-only-name comm.csv
check "a trailing slash: the same model" 0 "" cmp "$d/fused/fused_model.txt" "$T/direct/model.txt"

d=$(folder missing fused_points.csv)
check "communicator-only rows needed, missing: skipped, saying why" 0 \
  "cost model on fused/fused.csv: not run \(needs fused/comm.csv" "$model" --regenerate "$d" --comm-only-name comm.csv
check "communicator-only rows missing: no model written" 1 "" test -e "$d/fused/fused_model.txt"

d=$(folder one fused_points_one_gpu.csv)
check "one GPU: the model without communicator-only rows" 0 "^$" "$model" --regenerate "$d" --comm-only-name comm.csv
check "one GPU: written" 0 "gemm_ar 4096x4096x2048 w1 +measured best" cat "$d/fused/fused_model.txt"

d=$(folder ceilings fused_points_one_gpu.csv)
rm "$d/sync/sync.csv"
check "no sync.csv: skipped, saying why" 0 "not run \(needs transfer/transfer.csv and sync/sync.csv" \
  "$model" --regenerate "$d" --comm-only-name comm.csv

d=$(folder foreign fused_points_foreign_column.csv)
check "a fused CSV it cannot read: exit 1" 1 "'bogus_column': not a column" "$model" --regenerate "$d" --comm-only-name comm.csv

d=$(folder listed fused_points.csv fused_comm_only_other_commit.csv)
printf '# pairs\n\nfused.csv comm.csv\n' > "$d/fused/cost_model_inputs.txt"
check "cost_model_inputs.txt: its pairing is checked like a direct run's" 1 "git_commit \(abc1234\) is not" \
  "$model" --regenerate "$d" --comm-only-name unused.csv
check "a failed run leaves no model" 1 "" test -e "$d/fused/fused_model.txt"
printf 'fused.csv comm.csv --allow-mixed-commits\n' > "$d/fused/cost_model_inputs.txt"
check "cost_model_inputs.txt: its flags given" 0 "^$" "$model" --regenerate "$d" --comm-only-name unused.csv
check "cost_model_inputs.txt: written" 0 "different stamps: used with --allow-mixed-commits" cat "$d/fused/fused_model.txt"
printf 'fused.csv comm.csv --bogus\n' > "$d/fused/cost_model_inputs.txt"
check "cost_model_inputs.txt: an unknown flag" 1 "'--bogus': not a flag it may give" \
  "$model" --regenerate "$d" --comm-only-name unused.csv
printf 'fused.csv\n' > "$d/fused/cost_model_inputs.txt"
check "cost_model_inputs.txt: one word" 1 "'fused.csv': not 'FUSED_CSV COMM_ONLY_CSV \[FLAG...\]'" \
  "$model" --regenerate "$d" --comm-only-name unused.csv

check "--regenerate needs --comm-only-name" 2 "requires --comm-only-name" "$model" --regenerate "$d"
check "--regenerate alone" 2 "--fused excludes --regenerate|--regenerate excludes --fused" \
  "$model" --regenerate "$d" --comm-only-name x --fused "$d/fused/fused.csv"
check "--regenerate of no folder" 2 "--regenerate" "$model" --regenerate "$T/nonexistent" --comm-only-name x
exit $((fails > 0))
