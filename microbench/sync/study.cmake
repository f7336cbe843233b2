# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(sync        pkbench_sync_core         pk::sync::sync_columns
                ANALYSIS pkbench_sync_analysis PARTS pk::sync::sync_parts)
