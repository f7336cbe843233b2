# NVSHMEM (optional; primitives: device API; collectives: on-stream host collectives), found
# (never downloaded) from, in order:
#   -DPKBENCH_NVSHMEM_ROOT=<dir> (or the environment variable of that name): an install with
#     include/nvshmem.h, lib/libnvshmem_device.a and lib/libnvshmem_host.so.3;
#   the nvidia-nvshmem-cu13 Python wheel of the python3 on PATH
#     (python3 -c "import nvidia.nvshmem as m; print(m.__path__[0])").
# Defines PKBENCH_HAVE_NVSHMEM and pkbench_nvshmem (an INTERFACE target: headers, the device
# library for the device link, the versioned host library with an rpath). The harness builds
# its runtime on it (pkbench_nvshmem_runtime, microbench/CMakeLists.txt). Only the targets
# that link them get relocatable device code and NVSHMEM's libraries; the executables that
# link them are device-linked by CMake.
set(PKBENCH_NVSHMEM_ROOT "$ENV{PKBENCH_NVSHMEM_ROOT}" CACHE PATH
    "NVSHMEM install (include/, lib/libnvshmem_device.a, lib/libnvshmem_host.so.3); empty: the nvidia-nvshmem-cu13 wheel")
set(PKBENCH_HAVE_NVSHMEM OFF)
set(_pk_nvshmem_root "${PKBENCH_NVSHMEM_ROOT}")
set(_pk_nvshmem_from "PKBENCH_NVSHMEM_ROOT")
if(NOT _pk_nvshmem_root)
  find_program(PKBENCH_PYTHON3 python3)
  if(PKBENCH_PYTHON3)
    execute_process(COMMAND ${PKBENCH_PYTHON3} -c "import nvidia.nvshmem as m; print(m.__path__[0])"
                    OUTPUT_VARIABLE _pk_nvshmem_root OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET
                    RESULT_VARIABLE _pk_py_rc)
    if(NOT _pk_py_rc EQUAL 0)
      set(_pk_nvshmem_root "")
    endif()
    set(_pk_nvshmem_from "the nvidia-nvshmem wheel of ${PKBENCH_PYTHON3}")
  endif()
endif()
# Whether the wheel was importable at this configure (ROOT: an explicit install was named):
# scripts/lib.sh's pk_build configures again when python3's answer has changed since (a wheel
# installed, or removed, after the build folder was made), so NVSHMEM is never left off by a
# stale build folder.
if(PKBENCH_NVSHMEM_ROOT)
  set(_pk_wheel_seen ROOT)
elseif(_pk_nvshmem_root)
  set(_pk_wheel_seen ON)
else()
  set(_pk_wheel_seen OFF)
endif()
set(PKBENCH_NVSHMEM_WHEEL_SEEN ${_pk_wheel_seen} CACHE INTERNAL "nvidia.nvshmem importable by python3 at configure (ON/OFF; ROOT: PKBENCH_NVSHMEM_ROOT set)" FORCE)
if(_pk_nvshmem_root AND EXISTS "${_pk_nvshmem_root}/include/nvshmem.h"
   AND EXISTS "${_pk_nvshmem_root}/lib/libnvshmem_device.a"
   AND EXISTS "${_pk_nvshmem_root}/lib/libnvshmem_host.so.3")
  set(PKBENCH_HAVE_NVSHMEM ON)
  set(PKBENCH_NVSHMEM_INCLUDE "${_pk_nvshmem_root}/include")
  set(PKBENCH_NVSHMEM_LIBDIR "${_pk_nvshmem_root}/lib")
  add_library(pkbench_nvshmem_device_lib STATIC IMPORTED)
  set_target_properties(pkbench_nvshmem_device_lib PROPERTIES IMPORTED_LOCATION "${PKBENCH_NVSHMEM_LIBDIR}/libnvshmem_device.a")
  # The wheel ships only the versioned name: link it by full path (DT_NEEDED libnvshmem_host.so.3).
  add_library(pkbench_nvshmem_host_lib SHARED IMPORTED)
  set_target_properties(pkbench_nvshmem_host_lib PROPERTIES
    IMPORTED_LOCATION "${PKBENCH_NVSHMEM_LIBDIR}/libnvshmem_host.so.3"
    IMPORTED_SONAME "libnvshmem_host.so.3")
  add_library(pkbench_nvshmem INTERFACE)
  target_include_directories(pkbench_nvshmem SYSTEM INTERFACE "${PKBENCH_NVSHMEM_INCLUDE}")
  target_link_libraries(pkbench_nvshmem INTERFACE pkbench_nvshmem_device_lib pkbench_nvshmem_host_lib ${CMAKE_DL_LIBS})
  # The host library, and the bootstrap plugin it dlopens from its own folder, at run time.
  target_link_options(pkbench_nvshmem INTERFACE "LINKER:-rpath,${PKBENCH_NVSHMEM_LIBDIR}")
  message(STATUS "pkbench: NVSHMEM found in ${_pk_nvshmem_root} (from ${_pk_nvshmem_from}): "
                 "the primitives' nvshmem style and the collectives' nvshmem baseline are built")
else()
  message(STATUS "pkbench: NVSHMEM not found (set PKBENCH_NVSHMEM_ROOT, or pip install nvidia-nvshmem-cu13): "
                 "the primitives and collectives studies are built without it and record its rows as skipped")
endif()
