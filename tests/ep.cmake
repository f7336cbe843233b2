# The expert-parallel study registers its tests beside its code.
include(${CMAKE_SOURCE_DIR}/microbench/ep/tests.cmake)
