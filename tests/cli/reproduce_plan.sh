#!/usr/bin/env bash
# scripts/reproduce.sh without a GPU: its plan, its refusals and its argument checks.
#   reproduce_plan.sh SOURCE_DIR
set -uo pipefail
r="$1/scripts/reproduce.sh"
fail=0
check() {  # name expected_rc regex command...
  local name=$1 want=$2 re=$3
  shift 3
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [ "$rc" != "$want" ] || ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
    echo "FAILED $name: exit $rc (want $want), output not matching /$re/:"
    printf '%s\n' "$out" | sed 's/^/    /'
    fail=1
  else
    echo "ok $name"
  fi
}
check "list for two GPUs" 0 'fig2 +transfer +50s' "$r" --list --gpus=2
check "multicast is refused" 0 'fig6nvls .*cannot: NVSwitch multicast is never run on shared machines' "$r" --list --gpus=2
check "8 GPUs on 2 is refused" 0 'paper8 .*cannot: needs 8 GPUs, 2 present' "$r" --list --gpus=2
check "a study not built yet is refused" 0 "fig7 .*cannot: the fused study (is not built yet|has no reproduce command yet)" "$r" --list --gpus=2
check "the plan fits device calls" 0 'device call 1 \(~[1-9] min\): scripts/reproduce.sh fig2 fig3 table1 sync' "$r" --list --gpus=2
check "no GPU: everything refused" 0 'fig2 .*cannot: needs 2 GPUs, 0 present' "$r" --list --gpus=0
check "one GPU: sync only" 0 'sync +sync +30s' "$r" --list --gpus=1
check "unknown step" 2 "unknown step 'fig99'" "$r" fig99
check "nothing asked" 2 'usage|steps:' "$r"
check "bad --gpus" 2 '--gpus=two: not a GPU count' "$r" --gpus=two --list
check "more GPUs than present" 2 '(--gpus=64 but this machine has)|(no NVIDIA GPU)' "$r" --gpus=64 fig2
check "dry run prints the commands" 0 'pkbench_transfer --csv=.*/parts/transfer.fig2.csv --preset=fig2' \
  "$r" --dry-run --gpus=2 fig2 fig6nvls
check "dry run names the refusal" 0 'fig6nvls: cannot run here: NVSwitch multicast' "$r" --dry-run --gpus=2 fig2 fig6nvls
check "table1 runs three presets" 0 'transfer.table1.3.csv --preset=local' "$r" --dry-run --gpus=2 table1
if ! nvidia-smi -L >/dev/null 2>&1; then
  check "a real run needs a GPU" 3 'no NVIDIA GPU' "$r" fig2
fi
exit $fail
