#!/usr/bin/env bash
# scripts/reproduce.sh without a GPU: its plan, its refusals, its argument checks and --resume /
# --only (dry runs over a scratch results folder).
#   reproduce_plan.sh SOURCE_DIR
set -uo pipefail
r="$1/scripts/reproduce.sh"
source "$(dirname "$0")/check_lib.sh"
check "list for two GPUs" 0 'fig2 +transfer +[0-9]+s' "$r" --list --gpus=2
check "multicast is refused" 0 'fig6nvls .*cannot: NVSwitch multicast is never run' "$r" --list --gpus=2
check "8 GPUs on 2 is refused" 0 'paper8 .*cannot: needs 8 GPUs, 2 present' "$r" --list --gpus=2
check "the fused steps are planned" 0 'fig7 +fused +[1-9][0-9]*s +Figure 7' "$r" --list --gpus=2
check "fig4 stands for fig8 and fig9" 0 'fig4 +fused +=.*runs fig8 fig9' "$r" --list --gpus=2
check "the cost model's GEMM sweep is planned" 0 'model +gemm +[1-9][0-9]*s' "$r" --list --gpus=2
check "the plan's total" 0 'total: [1-9][0-9]* steps, ~[1-9][0-9]* min with the build' "$r" --list --gpus=2
check "--help names --resume" 0 'reproduce.sh --resume ' "$r" --help
check "--help names --only" 0 'reproduce.sh --only fig2,fig3 ' "$r" --help
check "--help lists the steps" 0 '^steps: fig2 fig3 ' "$r" --help
check "no GPU: everything refused" 0 'fig2 .*cannot: needs 2 GPUs, 0 present' "$r" --list --gpus=0
check "one GPU: sync only" 0 'sync +sync +[0-9]+s' "$r" --list --gpus=1
check "unknown step" 2 "unknown step 'fig99'" "$r" fig99
check "--only without a step" 2 '--only needs STEP' "$r" --only
check "--only with an unknown step" 2 "unknown step 'fig99'" "$r" --only fig2,fig99 --list
check "--only lists those steps" 0 '^  fig3 ' "$r" --list --gpus=2 --only=fig2,fig3
if printf '%s\n' "$("$r" --list --gpus=2 --only fig2 2>&1)" | grep -q '^  fig3 '; then
  echo "FAILED --only fig2 lists fig3"; fails=$((fails + 1))
else
  echo "ok --only fig2 lists fig2 alone"
fi
check "bad --gpus" 2 '--gpus=two: not a GPU count' "$r" --gpus=two --list
check "more GPUs than present" 2 '(--gpus=64 but this machine has)|(no NVIDIA GPU)' "$r" --gpus=64 fig2
check "dry run prints the commands" 0 'pkbench_transfer --csv=.*/parts/transfer.fig2.csv --preset=fig2' \
  "$r" --dry-run --gpus=2 fig2 fig6nvls
check "dry run names the refusal" 0 'fig6nvls: cannot run here: NVSwitch multicast' "$r" --dry-run --gpus=2 fig2 fig6nvls
check "table1 runs three presets" 0 'transfer.table1.3.csv --preset=local' "$r" --dry-run --gpus=2 table1
# --resume keeps a finished part, a plain run reruns it (a dry run over a scratch results folder).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/transfer/parts"
: > "$scratch/transfer/parts/transfer.fig2.csv"
: > "$scratch/transfer/parts/transfer.fig2.csv.done"
check "--resume keeps a finished step" 0 'fig2: transfer.fig2.csv finished in an earlier run, kept' \
  env PKBENCH_OUT="$scratch" "$r" --dry-run --gpus=2 --resume --only fig2,fig3
check "--resume runs the unfinished ones" 0 'pkbench_transfer --csv=.*/parts/transfer.fig3.csv --preset=fig3' \
  env PKBENCH_OUT="$scratch" "$r" --dry-run --gpus=2 --resume --only fig2,fig3
check "without --resume a finished step reruns" 0 'pkbench_transfer --csv=.*/parts/transfer.fig2.csv --preset=fig2' \
  env PKBENCH_OUT="$scratch" "$r" --dry-run --gpus=2 --only fig2
if env PKBENCH_OUT="$scratch" "$r" --dry-run --gpus=2 --resume --only fig2 2>&1 | grep -q 'pkbench_transfer --csv'; then
  echo "FAILED --resume reran a finished step"; fails=$((fails + 1))
else
  echo "ok --resume runs nothing that finished"
fi
check "no step named: every step" 0 'pkbench_fused --csv=.*/parts/fused.fig7.csv' env PKBENCH_OUT="$scratch" "$r" --dry-run --gpus=2
# The fused steps: one process per GPU, the study's own binary, merged into the committed layout.
check "fused steps run under mpirun" 0 'mpirun -np 2 .*/bin/pkbench_fused --csv=.*/parts/fused.fig7.csv --ops=ag_gemm .*--peer-mode=ipc' \
  "$r" --dry-run --gpus=2 fig7
check "fig4 runs fig8 and fig9" 0 'pkbench_merge .*/fused/fused.csv .*/parts/fused.fig8.csv .*/parts/fused.fig9.csv' \
  "$r" --dry-run --gpus=2 fig4
check "the communicator-only rows for the cost model" 0 \
  'pkbench_fused --csv=.*/parts/fused.comm_only.csv --preset=comm_only .*--peer-mode=ipc' \
  "$r" --dry-run --gpus=2 comm_only
check "merged where regenerate.sh reads them" 0 'pkbench_merge .*/fused/communicator_only_rs_ar.csv .*/parts/fused.comm_only.csv' \
  "$r" --dry-run --gpus=2 comm_only
check "fig5 and table3 keep their CSVs" 0 'pkbench_merge .*/fused/fused_table3.csv .*/parts/fused.table3.csv' \
  "$r" --dry-run --gpus=2 fig5 table3
check "the tuning tables" 0 'tuning/command.txt: build/bin/pkbench_tune --out .*/tuning .*/fused/fused.csv' "$r" --dry-run --gpus=2 fig8
# The cost model runs in scripts/regenerate.sh (results_regenerate_h200x2 checks its output).
# Summaries, tuning tables, figures and the report: what the layout derives from its CSVs.
check "everything derived" 0 '\$ .*/scripts/regenerate.sh ' "$r" --dry-run --gpus=2 fig8
check "parts in the study's folder" 0 'pkbench_merge .*/transfer/transfer.csv .*/transfer/parts/transfer.fig2.csv' \
  "$r" --dry-run --gpus=2 fig2
if ! nvidia-smi -L >/dev/null 2>&1; then
  check "a real run needs a GPU" 3 'no NVIDIA GPU' "$r" fig2
  check "nothing asked: everything, which needs a GPU" 3 'no NVIDIA GPU' "$r"
fi
exit $((fails > 0))
