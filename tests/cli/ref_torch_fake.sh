#!/usr/bin/env bash
# microbench/fused/ref_torch.py's control flow without PyTorch or a GPU, on the stand-in of
# tests/fixtures/fake_torch (one float per tensor): every planned row written ok, the file
# whole; without any torch module every row skipped with the reason (exit 0); multicast asked
# for refused (exit 2); and pkbench_torch_ref reads the CSV it wrote.
#   ref_torch_fake.sh SOURCE_DIR PKBENCH_TORCH_REF
set -uo pipefail
src=${1:?source dir} ref=${2:?pkbench_torch_ref}
drv=$src/microbench/fused/ref_torch.py
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
command -v python3 >/dev/null || { echo "python3 not installed: skipped"; exit 77; }
RANK=0 LOCAL_RANK=0 WORLD_SIZE=4 PYTHONPATH=$src/tests/fixtures/fake_torch python3 -B "$drv" --csv="$w/t.csv" \
  --fused-sizes=4096,8192 --ar-sizes=4K:16K --samples=3 > "$w/log" 2>&1 || { cat "$w/log"; fail "driver on the stand-in exited non-zero"; }
rows=$(($(wc -l < "$w/t.csv") - 1))
ok=$(grep -c ',ok,$' "$w/t.csv")
[ "$rows" = 26 ] && [ "$ok" = 26 ] || fail "expected 26 ok rows (8 fused, 18 all-reduce), got $ok of $rows"
cp "$src/tests/fixtures/collectives_fixture.csv" "$w/c.csv"
"$ref" --torch="$w/t.csv" --collectives="$w/c.csv" > "$w/merge.log" 2>&1
[ $? = 1 ] || fail "pkbench_torch_ref: 4 GPUs against the 2-GPU fixture should match no row (exit 1)"
PYTHONPATH=$w RANK=0 python3 -B "$drv" --csv="$w/s.csv" --fused-sizes=4096 --ar-sizes=4K > "$w/log2" 2>&1 ||
  fail "driver without PyTorch exited non-zero"
python3 -c "import torch" 2>/dev/null && { echo "PyTorch installed here: the skip path is not checked"; } ||
  { grep -q ',skipped,PyTorch is not importable' "$w/s.csv" || fail "rows without PyTorch are not skipped with the reason"; }
TORCH_SYMM_MEM_DISABLE_MULTICAST=0 python3 -B "$drv" --csv="$w/m.csv" > /dev/null 2>&1
[ $? = 2 ] || fail "TORCH_SYMM_MEM_DISABLE_MULTICAST=0 not refused with exit 2"
[ ! -e "$w/m.csv" ] || fail "a refused run wrote a CSV"
echo "ref_torch.py on the stand-in: $ok rows ok; skip and refusal paths checked"
