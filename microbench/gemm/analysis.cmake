# The GEMM study's plain C++ (no CUDA): pkbench_gemm_schema (shapes, variants, points, the
# CSV's columns) and pkbench_gemm_analysis (the reader, the lookups the sweeps' targets and
# report use, the comparison measure). microbench/CMakeLists.txt includes this file for every
# build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs.
add_library(pkbench_gemm_schema STATIC ${CMAKE_CURRENT_LIST_DIR}/gemm_problem.cpp)
target_link_libraries(pkbench_gemm_schema PUBLIC pkbench_harness)

add_library(pkbench_gemm_analysis STATIC ${CMAKE_CURRENT_LIST_DIR}/gemm_analysis.cpp)
target_link_libraries(pkbench_gemm_analysis PUBLIC pkbench_gemm_schema pkbench_csv)
# -Wno-restrict: GCC 12 false positives on std::string concatenation (GCC PR 105329).
target_compile_options(pkbench_gemm_analysis PRIVATE -Wall -Wextra -Wno-restrict)
