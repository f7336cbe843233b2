build/microbench/fused/pkbench_fused --csv=results/h100x1/fused/virtual/fused_virtual.csv --peer-mode=virtual --ranks=2 --sizes=4096 
