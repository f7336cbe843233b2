build/microbench/primitives/pkbench_primitives --csv=results/h200x1/primitives/virtual/primitives_virtual.csv --peer-mode=virtual --ranks=2 
