# The sequence-parallel study registers its tests beside its code.
include(${CMAKE_SOURCE_DIR}/microbench/seqpar/tests.cmake)
