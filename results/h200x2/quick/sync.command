/tmp/pkq2/microbench/pkbench_sync --csv=results/h200x2/sync.csv --iters=1000 
