#!/usr/bin/env bash
# discovery_timeout.sh SOURCE_DIR: every GoogleTest binary is discovered through
# pk_discover_tests (tests/CMakeLists.txt), which sets DISCOVERY_TIMEOUT; a direct
# gtest_discover_tests call elsewhere would get CMake's 5 s default back.
src=$1
bad=$(grep -rn --include='*.cmake' --include=CMakeLists.txt 'gtest_discover_tests(' "$src" \
  --exclude-dir='build*' --exclude-dir=.deps | grep -v "^$src/tests/CMakeLists.txt:.*gtest_discover_tests(\${target} DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT")
if [ -n "$bad" ]; then
  echo "gtest_discover_tests called without pk_discover_tests (CMake's 5 s discovery timeout):"
  echo "$bad"
  exit 1
fi
n=$(grep -rn --include='*.cmake' --include=CMakeLists.txt 'pk_discover_tests(' "$src" --exclude-dir='build*' | grep -vc 'function(pk_discover_tests')
[ "$n" -gt 0 ] || { echo "no pk_discover_tests call found under $src"; exit 1; }
echo "$n test binaries discovered with pk_discover_tests"
