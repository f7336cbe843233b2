# What the scripts know of the gemm study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
# scripts/harness-cost.sh: one GPU (no virtual ranks), scripts/run.sh's one-GPU profile's shapes.
pk_gemm_harness_cost_flags() { echo --preset=small; }
# scripts/run.sh's one-GPU profile: the GEMM against cuBLAS.
pk_gemm_one_gpu() { run_study gemm "$1/gemm.csv" --preset=small; }
# scripts/reproduce.sh's steps of the study (its plan's format; each line led by its place in
# the plan, the study's name left out).
pk_gemm_reproduce_steps() {
  cat <<'EOF'
190|model|Section 3.1.1 cost model: the GEMM's rate against its SM count (the model runs on the fused CSVs afterwards)|2|10|--preset=model --samples=5 --study-warmup-ms=200||fused/gemm.csv
EOF
}
