build/microbench/pkbench_sync --csv=results/h100x1/sync.csv 
