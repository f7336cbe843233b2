# What the scripts know of the launch study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/run.sh's one-GPU profile (also --quick on one GPU): the default grid on the GPU; the
# study has no peers, so the virtual-rank flags run.sh offers are not passed.
pk_launch_one_gpu() { run_study launch "$1/launch.csv"; }
# scripts/run.sh --quick on several GPUs: the smoke grid.
pk_launch_quick() { run_study launch "$1/launch.csv" --preset=smoke; }
