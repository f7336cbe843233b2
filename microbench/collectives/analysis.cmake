# The collectives study's plain C++ analysis (no CUDA): pkbench_coll_schema (the CSV's columns,
# also linked by the study's pkbench_coll_problem), pkbench_collectives_analysis (the reader,
# points and verdicts, the tuning table, the targets, the summary, the comparison measure) and
# pkbench_collectives_summary. microbench/CMakeLists.txt includes this file for every build, the
# study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs, their headers
# checked against the study's own declaration (coll_read_columns()).
add_library(pkbench_coll_schema STATIC ${CMAKE_CURRENT_LIST_DIR}/coll_schema.cpp)
target_include_directories(pkbench_coll_schema PUBLIC ${CMAKE_SOURCE_DIR})
target_compile_options(pkbench_coll_schema PRIVATE -Wall -Wextra)

pk_study_analysis(collectives SOURCES collectives_analysis.cpp collectives_parts.cpp TOOLS collectives_summary
                  LINK pkbench_coll_schema pkbench_analysis)
