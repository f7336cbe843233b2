# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(seqpar      pkbench_seqpar_problem    pk::seqpar::seqpar_columns)
