# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(launch      pkbench_launch_problem    pk::launch::launch_columns)
