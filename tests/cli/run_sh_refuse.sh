#!/usr/bin/env bash
# run_sh_refuse.sh SOURCE_DIR BUILD_DIR: scripts/run.sh refuses bad input with exit 2 before it
# looks for a GPU: an unknown peer mode (the flag's or PKBENCH_PEER_MODE's, the known ones
# listed), and a study's bad flags, which its binary checks first (here, where there is no
# GPU, instead of exit 3). Where a GPU is visible run.sh would go on to measure: skipped (77).
src=$1
export PKBENCH_BUILD_DIR=$2
if nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
  echo "a GPU is visible: run.sh would measure; this no-GPU check is skipped"
  exit 77
fi
# shellcheck source=/dev/null
source "$(dirname "$0")/check_lib.sh"
run=$src/scripts/run.sh
check peer_mode_bogus 2 "--peer-mode=bogus: unknown peer mode 'bogus' \(single, ipc, vmm, virtual\)" "$run" transfer --peer-mode=bogus
check peer_mode_env_bogus 2 "PKBENCH_PEER_MODE=bogus: unknown peer mode" env PKBENCH_PEER_MODE=bogus "$run" transfer
check sizes_empty_item 2 "--sizes" "$run" transfer --sizes=4K,,8K
check max_ops_negative 2 "--max-ops" "$run" transfer --max-ops=-1
check collectives_ranks_0 2 "--ranks" "$run" collectives --peer-mode=virtual --ranks=0
check good_flags_no_gpu 3 "no NVIDIA GPU" "$run" transfer --sizes=4K,8K
exit $((fails > 0))
