# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
pk_sweeps_study(gemm        pkbench_gemm_analysis     pk::gemm::gemm_columns
                PARTS pk::gemm::gemm_parts)
