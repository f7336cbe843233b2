build/microbench/pkbench_transfer --csv=results/h200x2/transfer.csv 
