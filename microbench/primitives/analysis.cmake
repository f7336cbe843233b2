# The primitives study's plain C++ (no CUDA), built for every build, the study left out
# (PKBENCH_STUDIES) or not (microbench/CMakeLists.txt includes this file), so the sweeps always
# read its CSVs: pkbench_primitives_schema (the vocabulary; the sweeps check primitives CSVs
# against its columns), pkbench_primitives_analysis (the CSV through the harness's reader, the
# summary, the targets) and its tool pkbench_primitives_summary.
add_library(pkbench_primitives_schema STATIC ${CMAKE_CURRENT_LIST_DIR}/primitives_schema.cpp)
target_include_directories(pkbench_primitives_schema PUBLIC ${CMAKE_SOURCE_DIR})
target_link_libraries(pkbench_primitives_schema PUBLIC pkbench_csv)
target_compile_options(pkbench_primitives_schema PRIVATE -Wall -Wextra)

pk_study_analysis(primitives SOURCES primitives_summary.cpp primitives_targets.cpp TOOLS primitives_summary
                  LINK pkbench_primitives_schema)
