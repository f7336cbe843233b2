# The collectives study's plain C++ analysis (no CUDA): pkbench_collectives_analysis (the
# reader, points and verdicts, the tuning table, the targets, the summary, the comparison
# measure) and pkbench_collectives_summary. microbench/CMakeLists.txt includes this file for
# every build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs;
# where the study is configured, its CSVs' headers are checked against its own declaration
# (pkbench_coll_problem's coll_read_columns()).
pk_study_analysis(collectives SOURCES collectives_analysis.cpp TOOLS collectives_summary LINK pkbench_analysis
                  COLUMNS pkbench_coll_problem)
