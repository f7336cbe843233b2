build/microbench/gemm/pkbench_gemm --csv=results/h100x1/gemm/gemm.csv --shapes=4096x4096x4096\,8192x8192x8192 
