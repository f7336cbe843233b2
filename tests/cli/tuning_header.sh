#!/usr/bin/env bash
# A project that includes the generated tuning header: pkbench_tune writes the tables of a
# committed H200x2 transfer CSV (a fixture copy) and of the other fixtures (transfer, collectives, fused), a
# small C++17 program is compiled against the header and pkbench/tuning.h alone, and its
# lookups are checked against the CSVs written beside it, the API's answers over the header
# against its answers over the JSON.
#   tuning_header.sh PKBENCH_TUNE CXX SOURCE_DIR WORK_DIR
set -euo pipefail
tune=$1 cxx=$2 src=$3 work=$4
rm -rf "$work"
mkdir -p "$work"
"$tune" --out "$work" "$src/tests/fixtures/transfer_h200x2_single.csv" "$src/tests/fixtures/transfer_fixture.csv" \
  "$src/tests/fixtures/collectives_fixture.csv" "$src/tests/fixtures/fused_fixture.csv"
"$cxx" -std=c++17 -Wall -Wextra -Werror -I"$work" -I"$src/tuning/include" "$src/tests/cpu/tuning_header_check.cpp" -o "$work/check"
"$work/check" "$work/transfer_tuning.csv" "$work/collectives_tuning.csv" "$work/fused_tuning.csv"
# Under an older standard the generated header says so once (one #error naming C++17).
"$(dirname "$0")/cxx_std_error.sh" "$cxx" "$work/pkbench_tuning.h" -I"$src/tuning/include"

# Virtual-rank rows (several ranks on one GPU: HBM, not NVLink) are never tuning input.
awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "peer_mode") c = i; print; next } { $c = "virtual"; print }' \
  "$src/tests/fixtures/transfer_fixture.csv" > "$work/virtual.csv"
set +e
"$tune" --out "$work" "$work/virtual.csv" > "$work/virtual.log" 2>&1
rc=$?
set -e
if [[ $rc != 2 ]] || ! grep -q "virtual ranks" "$work/virtual.log"; then
  echo "FAILED: pkbench_tune took a virtual-rank CSV (exit $rc):"
  cat "$work/virtual.log"
  exit 1
fi

# The JSON written here against the versioned JSON Schema (python3-jsonschema, where present).
if python3 -c "import jsonschema" 2> /dev/null; then
  python3 - "$src/tuning/schema/pkbench-tuning-v1.schema.json" "$work"/*_tuning.json << 'PY'
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
for path in sys.argv[2:]:
    jsonschema.validate(json.load(open(path)), schema)
    print("schema v1 valid:", path)
PY
else
  echo "python3-jsonschema not installed: the JSON Schema check is skipped"
fi

# pkbench_tune_loo (beside pkbench_tune): bad input refused with the flag named (exit 2), a
# fixture validated.
loo=$(dirname "$tune")/pkbench_tune_loo
expect2() {
  local want=$1
  shift
  set +e
  "$@" > "$work/loo.log" 2>&1
  local rc=$?
  set -e
  if [[ $rc != 2 ]] || ! grep -q -- "$want" "$work/loo.log"; then
    echo "FAILED: expected exit 2 with '$want' from: $*"
    cat "$work/loo.log"
    exit 1
  fi
}
expect2 "--tolerance=abc" "$loo" --tolerance=abc "$src/tests/fixtures/transfer_fixture.csv"
expect2 "is a sync CSV" "$loo" "$src/tests/fixtures/sync_fixture.csv"
expect2 "no CSV given" "$loo"
"$loo" "$src/tests/fixtures/transfer_fixture.csv" "$src/tests/fixtures/collectives_fixture.csv" \
  "$src/tests/fixtures/fused_fixture.csv" > "$work/loo.md"
grep -q "^| all | " "$work/loo.md" || { echo "FAILED: no summary line"; cat "$work/loo.md"; exit 1; }
echo "pkbench_tune_loo: refusals and the fixture summary checked"
