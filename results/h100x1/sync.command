build/microbench/pkbench_sync --csv=results/h100x1/sync.csv --iters=1000 
build/microbench/pkbench_sync --csv=results/h100x1/virtual/sync_virtual.csv --peer-mode=virtual --ranks=2 --levels=cross_gpu --iters=1000 
