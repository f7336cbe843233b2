#!/usr/bin/env bash
# needs_gpus.sh N [--skip-without-gpu] COMMAND...: runs COMMAND, unless this machine has GPUs
# but fewer than N (one rank per GPU cannot start there): then exit 77, which the test counts
# as skipped. Without any GPU the command runs as is (its own no-GPU path is what is tested
# there), or, with --skip-without-gpu, is skipped too.
n=$1
shift
skip_none=0
[ "${1:-}" = --skip-without-gpu ] && { skip_none=1; shift; }
have=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
if [ "${have:-0}" -lt "$n" ] && { [ "${have:-0}" -ge 1 ] || [ "$skip_none" = 1 ]; }; then
  echo "SKIPPED: needs $n GPUs for one rank per GPU (this machine has ${have:-0})"
  exit 77
fi
exec "$@"
