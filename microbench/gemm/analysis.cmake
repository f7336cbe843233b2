# The GEMM study's plain C++ (no CUDA): pkbench_gemm_schema (shapes, variants, points, the
# CSV's columns) and pkbench_gemm_analysis (the reader, the lookups the sweeps' report uses,
# the study's target, the comparison measure). microbench/CMakeLists.txt includes this file
# for every build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its
# CSVs.
add_library(pkbench_gemm_schema STATIC ${CMAKE_CURRENT_LIST_DIR}/gemm_problem.cpp)
target_link_libraries(pkbench_gemm_schema PUBLIC pkbench_harness)

pk_study_analysis(gemm SOURCES gemm_analysis.cpp LINK pkbench_gemm_schema)
