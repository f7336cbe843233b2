build/microbench/collectives/pkbench_collectives --csv=results/h100x1/collectives/virtual/collectives_virtual.csv --peer-mode=virtual --ranks=2 --sizes=4K:64M:x4 --samples=5 
