# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
# collectives: with the retired columns the committed CSVs still carry (nccl_algo, speedup_vs_*).
pk_sweeps_study(collectives pkbench_coll_schema       pk::coll::coll_read_columns
                ANALYSIS pkbench_collectives_analysis PARTS pk::coll::collectives_parts)
