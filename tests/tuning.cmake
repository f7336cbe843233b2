# The tuning-table reader (tuning/include/pkbench/tuning.h) on hostile JSON: nesting, truncation
# at every byte, every field of every type, random edits (tests/fuzz/fuzz_tuning.cpp), built with
# bounds-checked containers and, where the compiler links them, AddressSanitizer and UBSan (one
# small translation unit over the header alone). And the header under an older standard: one
# error naming C++17.
include(CheckCXXSourceCompiles)
set(_pk_san_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer)
string(REPLACE ";" " " CMAKE_REQUIRED_FLAGS "${_pk_san_flags}")
set(CMAKE_REQUIRED_LINK_OPTIONS ${_pk_san_flags})
check_cxx_source_compiles("int main() { return 0; }" PKBENCH_CXX_HAS_ASAN_UBSAN)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
add_executable(pkbench_fuzz_tuning ${CMAKE_CURRENT_LIST_DIR}/fuzz/fuzz_tuning.cpp)
target_link_libraries(pkbench_fuzz_tuning PRIVATE pkbench::tuning)
target_compile_definitions(pkbench_fuzz_tuning PRIVATE _GLIBCXX_ASSERTIONS)
if(PKBENCH_CXX_HAS_ASAN_UBSAN)
  target_compile_options(pkbench_fuzz_tuning PRIVATE ${_pk_san_flags})
  target_link_options(pkbench_fuzz_tuning PRIVATE ${_pk_san_flags})
endif()
# A few thousand documents (the exhaustive cases and 400 random edits): seconds.
add_test(NAME refuse_tuning_fuzz COMMAND pkbench_fuzz_tuning 400 1)
set_tests_properties(refuse_tuning_fuzz PROPERTIES LABELS cpu TIMEOUT 300)

# Under -std=c++14: exactly one error, the #error naming C++17 (not hundreds from the body).
add_test(NAME tuning_header_cxx14 COMMAND ${CMAKE_CURRENT_LIST_DIR}/cli/cxx_std_error.sh ${CMAKE_CXX_COMPILER}
  ${CMAKE_SOURCE_DIR}/tuning/include/pkbench/tuning.h -I${CMAKE_SOURCE_DIR}/tuning/include)
set_tests_properties(tuning_header_cxx14 PROPERTIES LABELS cpu)
