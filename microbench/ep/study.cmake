# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(ep          pkbench_ep_problem        pk::ep::ep_columns)
