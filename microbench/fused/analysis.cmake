# The fused study's plain C++ analysis (no CUDA): pkbench_fused_analysis (the reader, Figures
# 7-9 and Table 3 as numbers, the tuning table, the targets, the Tuned section, the comparison
# measure) and pkbench_fused_summary. microbench/CMakeLists.txt includes this file for every
# build, the study left out (PKBENCH_STUDIES) or not, so the sweeps always read its CSVs; where
# the study is configured (it needs the gemm study), its CSVs' headers are checked against its
# own declaration (pkbench_fused_schema's fused_read_columns()).
pk_study_analysis(fused SOURCES fused_analysis.cpp TOOLS fused_summary LINK pkbench_tuning COLUMNS pkbench_fused_schema)
