# What the scripts know of the gemm study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/harness-cost.sh: one GPU (no virtual ranks), scripts/run.sh's one-GPU profile's shapes.
pk_gemm_harness_cost_flags() { echo --shapes=4096x4096x4096,8192x8192x8192; }
# scripts/run.sh's one-GPU profile: the GEMM against cuBLAS.
pk_gemm_one_gpu() { run_study gemm "$1/gemm.csv" --shapes=4096x4096x4096,8192x8192x8192; }
