# The collectives study's plain C++ analysis (no CUDA): pkbench_collectives_analysis (the
# reader, points and verdicts, the tuning table, the targets, the summary, the comparison
# measure) and pkbench_collectives_summary. microbench/CMakeLists.txt includes this file for
# every build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs;
# where the study is configured, its CSVs' headers are checked against its own declaration
# (pkbench_coll_problem's coll_read_columns()).
add_library(pkbench_collectives_analysis STATIC ${CMAKE_CURRENT_LIST_DIR}/collectives_analysis.cpp)
target_link_libraries(pkbench_collectives_analysis PUBLIC pkbench_analysis)
# -Wno-restrict: GCC 12 false positives on std::string concatenation (GCC PR 105329).
target_compile_options(pkbench_collectives_analysis PRIVATE -Wall -Wextra -Wno-restrict)
pk_study_configured(collectives _pk_coll_configured)
if(_pk_coll_configured)
  target_link_libraries(pkbench_collectives_analysis PRIVATE pkbench_coll_problem)
  target_compile_definitions(pkbench_collectives_analysis PRIVATE PKBENCH_HAVE_STUDY_COLUMNS)
endif()
add_executable(pkbench_collectives_summary ${CMAKE_CURRENT_LIST_DIR}/collectives_summary_main.cpp)
target_link_libraries(pkbench_collectives_summary PRIVATE pkbench_collectives_analysis)
target_compile_options(pkbench_collectives_summary PRIVATE -Wall -Wextra -Wno-restrict)
