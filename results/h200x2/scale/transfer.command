build/microbench/pkbench_transfer --csv=results/h200x2/scale/transfer.csv --preset=scale 
