# The fused study's plain C++ analysis (no CUDA): pkbench_fused_analysis (the reader, Figures
# 7-9 and Table 3 as numbers, the tuning table, the targets, the Tuned section, the comparison
# measure) and pkbench_fused_summary. microbench/CMakeLists.txt includes this file for every
# build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs; where
# the study is configured (it needs the gemm study), its CSVs' headers are checked against its
# own declaration (pkbench_fused_schema's fused_read_columns()).
add_library(pkbench_fused_analysis STATIC ${CMAKE_CURRENT_LIST_DIR}/fused_analysis.cpp)
target_link_libraries(pkbench_fused_analysis PUBLIC pkbench_analysis pkbench_tuning)
# -Wno-restrict: GCC 12 false positives on std::string concatenation (GCC PR 105329).
target_compile_options(pkbench_fused_analysis PRIVATE -Wall -Wextra -Wno-restrict)
pk_study_configured(fused _pk_fused_configured)
pk_study_configured(gemm _pk_fused_gemm_configured)
if(_pk_fused_configured AND _pk_fused_gemm_configured)
  target_link_libraries(pkbench_fused_analysis PRIVATE pkbench_fused_schema)
  target_compile_definitions(pkbench_fused_analysis PRIVATE PKBENCH_HAVE_STUDY_COLUMNS)
endif()
add_executable(pkbench_fused_summary ${CMAKE_CURRENT_LIST_DIR}/fused_summary_main.cpp)
target_link_libraries(pkbench_fused_summary PRIVATE pkbench_fused_analysis)
target_compile_options(pkbench_fused_summary PRIVATE -Wall -Wextra -Wno-restrict)
