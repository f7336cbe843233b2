# The study's registration with the sweeps (sweeps/CMakeLists.txt says what each argument is).
# primitives: not compared: its `value` column mixes metrics row by row (latency_ns, one_way_ns:
# lower is better; gbps: higher).
pk_sweeps_study(primitives  pkbench_primitives_schema pk::prim::study_columns
                ANALYSIS pkbench_primitives_analysis PARTS pk::prim::primitives_parts)
