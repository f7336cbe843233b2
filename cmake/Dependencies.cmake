# Every dependency is found, never downloaded. A missing optional piece disables only what
# needs it, and says so.

find_package(CUDAToolkit REQUIRED)
find_package(Threads REQUIRED)

# Header-only dependencies staged by scripts/stage-deps.sh land in .deps/include.
set(PKBENCH_DEPS_DIR "${CMAKE_SOURCE_DIR}/.deps" CACHE PATH "Folder with staged header-only dependencies")

find_package(benchmark CONFIG QUIET)
if(benchmark_FOUND)
  message(STATUS "pkbench: Google Benchmark ${benchmark_VERSION} found")
else()
  message(WARNING "pkbench: Google Benchmark not found: the study binaries (microbench/) are not built")
endif()

find_package(GTest CONFIG QUIET)
if(NOT GTest_FOUND)
  find_package(GTest QUIET)
endif()
if(GTest_FOUND)
  message(STATUS "pkbench: GoogleTest found")
else()
  message(WARNING "pkbench: GoogleTest not found: tests are not built")
endif()

# A header-only dependency (a Debian package, or staged into .deps/include by
# scripts/stage-deps.sh): `var` is its include folder; found, a status line (`found_note`
# after the folder); missing, a warning saying what goes without it.
function(pk_find_header var header name package found_note without)
  find_path(${var} ${header} HINTS "${PKBENCH_DEPS_DIR}/include" /usr/include /usr/local/include)
  if(${var})
    message(STATUS "pkbench: ${name} found in ${${var}}${found_note}")
  else()
    message(WARNING "pkbench: ${header} not found (apt install ${package}, or scripts/stage-deps.sh): ${without}")
  endif()
endfunction()

# CLI11: the command lines of the study binaries and of every tool.
pk_find_header(PKBENCH_CLI11_INCLUDE_DIR CLI/CLI.hpp CLI11 libcli11-dev "" "no binary or tool can be built")
if(NOT PKBENCH_CLI11_INCLUDE_DIR)
  message(FATAL_ERROR "pkbench: CLI11 is required (apt install libcli11-dev, or scripts/stage-deps.sh)")
endif()

# MPI: one process per GPU (--peer-mode=ipc|vmm under mpirun). Without it those modes are
# not built and the binaries say so when started by an MPI launcher.
find_package(MPI QUIET COMPONENTS CXX)
if(MPI_CXX_FOUND)
  message(STATUS "pkbench: MPI found (${MPI_CXX_LIBRARY_VERSION_STRING}): one process per GPU is built")
  set(PKBENCH_HAVE_MPI ON)
else()
  message(WARNING "pkbench: MPI not found (apt install libopenmpi-dev openmpi-bin): --peer-mode=ipc|vmm and the MPI tests are not built")
  set(PKBENCH_HAVE_MPI OFF)
endif()

find_path(PKBENCH_NCCL_INCLUDE_DIR nccl.h
  HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include /usr/local/include)
find_library(PKBENCH_NCCL_LIBRARY nccl
  HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib)
if(PKBENCH_NCCL_INCLUDE_DIR AND PKBENCH_NCCL_LIBRARY)
  message(STATUS "pkbench: NCCL found (${PKBENCH_NCCL_LIBRARY})")
  set(PKBENCH_HAVE_NCCL ON)
else()
  message(STATUS "pkbench: NCCL not found: NCCL baselines disabled")
  set(PKBENCH_HAVE_NCCL OFF)
endif()

# NVSHMEM: from PKBENCH_NVSHMEM_ROOT, else the nvidia-nvshmem-cu13 Python wheel; relocatable
# device code stays confined to the targets that link it.
include(${CMAKE_CURRENT_LIST_DIR}/Nvshmem.cmake)

find_program(PKBENCH_GNUPLOT gnuplot)
if(PKBENCH_GNUPLOT)
  message(STATUS "pkbench: gnuplot found: figures can be drawn")
else()
  message(STATUS "pkbench: gnuplot not found: figures are not drawn (scripts/plot.sh says so)")
endif()

# The commit is read at configure time; scripts/run.sh passes PKBENCH_GIT_COMMIT at run time,
# which wins (a copied working tree has no .git).
execute_process(COMMAND git rev-parse --short=12 HEAD
  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
  OUTPUT_VARIABLE PKBENCH_BUILD_COMMIT OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT PKBENCH_BUILD_COMMIT)
  set(PKBENCH_BUILD_COMMIT "unknown")
endif()
