/tmp/pkq2/microbench/pkbench_transfer --csv=results/h200x2/parts/transfer.quick-fig2.csv --preset=fig2 --patterns=one_way 
/tmp/pkq2/microbench/pkbench_transfer --csv=results/h200x2/parts/transfer.quick-fig3.csv --preset=fig3 
/tmp/pkq2/microbench/pkbench_transfer --csv=results/h200x2/parts/transfer.quick-local.csv --preset=local 
