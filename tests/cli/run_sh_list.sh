#!/usr/bin/env bash
# scripts/run.sh --list without a GPU: the main job's plan, each study's points and estimated
# time (each binary's --list), for this machine and for a node of 4 and 8 GPUs (--gpus=N); the
# main job's flags (lib.sh's pk_main_flags) and one process per GPU where mpirun is found
# (pk_study_peer_mode). Checks the plan, not a measured time: the estimate of the main job on 4
# and 8 GPUs stays within 5 minutes (issue 30's budget) and names every study.
#   run_sh_list.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=${1:?source dir} build=${2:?build dir}
source "$(dirname "$0")/check_lib.sh"
for s in transfer sync primitives collectives fused gemm; do
  [ -x "$build/bin/pkbench_$s" ] || { echo "pkbench_$s not built: skipped"; exit 3; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/path"
printf '#!/usr/bin/env bash\nexit 1\n' > "$T/path/nvidia-smi"  # no GPU, whatever this machine has
chmod +x "$T/path/nvidia-smi"
export PATH=$T/path:$PATH PKBENCH_BUILD_DIR=$build

for n in 4 8; do
  PATH=$T/path:$PATH "$src/scripts/run.sh" --list --gpus=$n > "$T/list$n.txt" 2> "$T/list$n.err"
  check "--gpus=$n: exit 0" 0 "" test -s "$T/list$n.txt"
  for s in transfer sync primitives collectives fused gemm; do
    check "--gpus=$n: $s planned with an estimate" 0 "^$s +[0-9]+ points, about [0-9.e+]+ s" cat "$T/list$n.txt"
  done
  check "--gpus=$n: collectives' main preset, every GPU count" 0 \
    "== collectives: pkbench_collectives --preset=main --gpu-counts=all .*--world=$n --list" cat "$T/list$n.txt"
  check "--gpus=$n: collectives planned at 2..$n GPUs" 0 "^collectives .*\(2 GPUs: .* $n GPUs: " cat "$T/list$n.txt"
  check "--gpus=$n: fused at every GPU count" 0 "^fused .*\(2 GPUs: .* $n GPUs: " cat "$T/list$n.txt"
  check "--gpus=$n: transfer's fan-out" 0 "transfer/ce/one_to_all/push/.*\[fan\]" cat "$T/list$n.txt"
  check "--gpus=$n: sync over every pair" 0 "flag_pingpong_pairs.*GPUs $((n - 2))-$((n - 1))" cat "$T/list$n.txt"
  total=$(sed -n 's/^total: about \([0-9]*\) s.*/\1/p' "$T/list$n.txt")
  check "--gpus=$n: the main job's estimate, ${total:-?} s, within 300 s" 0 "" test "${total:-9999}" -le 300
done
PATH=$T/path:$PATH "$src/scripts/run.sh" --list > "$T/list.txt" 2>&1
check "no GPU here: planned for 2 GPUs" 0 "^== plan for 2 GPU" cat "$T/list.txt"
check "--gpus without --list refused" 2 "goes with --list" "$src/scripts/run.sh" --gpus=4
check "--gpus=9 refused" 2 "a GPU count of 1 to 8" "$src/scripts/run.sh" --list --gpus=9

# lib.sh: the main job's flags and the peer mode of each study.
source "$src/scripts/lib.sh"
check "main flags, collectives on 4" 0 "^--preset=main --gpu-counts=all$" bash -c "source $src/scripts/lib.sh; pk_main_flags collectives 4 | paste -sd' '"
check "main flags, fused on 2: its main preset, no sweep" 0 "^--preset=main$" bash -c "source $src/scripts/lib.sh; pk_main_flags fused 2 | paste -sd' '"
printf '#!/usr/bin/env bash\nexit 0\n' > "$T/path/mpirun"
chmod +x "$T/path/mpirun"
check "collectives on 2 GPUs with mpirun: ipc" 0 "^ipc$" pk_study_peer_mode collectives 2
check "transfer on 2 GPUs: single" 0 "^single$" pk_study_peer_mode transfer 2
check "collectives on 1 GPU: single" 0 "^single$" pk_study_peer_mode collectives 1
check "--peer-mode=single kept" 0 "^single$" pk_study_peer_mode collectives 2 --peer-mode=single
check "--peer-mode virtual kept" 0 "^virtual$" pk_study_peer_mode collectives 2 --peer-mode virtual
check "PKBENCH_PEER_MODE=single" 0 "^single$" env PKBENCH_PEER_MODE=single bash -c "source $src/scripts/lib.sh; pk_study_peer_mode fused 4"
exit $((fails > 0))
