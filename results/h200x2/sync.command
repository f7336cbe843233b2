build/microbench/pkbench_sync --csv=results/h200x2/sync.csv 
