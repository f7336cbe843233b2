build/microbench/pkbench_transfer --csv=results/h100x1/parts/transfer.local-fig2.csv --preset=fig2 --patterns=local 
build/microbench/pkbench_transfer --csv=results/h100x1/parts/transfer.local-fig3.csv --preset=fig3 --patterns=local 
build/microbench/pkbench_transfer --csv=results/h100x1/parts/transfer.local.csv --preset=local 
