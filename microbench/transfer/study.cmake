# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(transfer    pkbench_transfer_core     pk::transfer::transfer_columns
                ANALYSIS pkbench_transfer_analysis PARTS pk::transfer::transfer_parts)
