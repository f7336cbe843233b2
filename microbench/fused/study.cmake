# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(fused       pkbench_fused_schema      pk::fused::fused_read_columns
                ANALYSIS pkbench_fused_analysis PARTS pk::fused::fused_parts)
