#!/usr/bin/env bash
# cxx_std_error.sh CXX HEADER [FLAGS...]: HEADER compiled under -std=c++14 fails with exactly
# one error, an #error naming C++17; under -std=c++17 it compiles.
cxx=$1 header=$2
shift 2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '#include "%s"\nint main() { return 0; }\n' "$header" > "$work/use.cpp"
if "$cxx" -std=c++14 -fsyntax-only "$@" "$work/use.cpp" > "$work/log" 2>&1; then
  echo "FAILED: $header compiled under -std=c++14"
  exit 1
fi
n=$(grep -c 'error:' "$work/log")
if [ "$n" != 1 ] || ! grep -q 'error: #error.*C++17' "$work/log"; then
  echo "FAILED: $n errors under -std=c++14, expected one #error naming C++17:"
  head -20 "$work/log"
  exit 1
fi
"$cxx" -std=c++17 -fsyntax-only "$@" "$work/use.cpp" || { echo "FAILED: $header does not compile under -std=c++17"; exit 1; }
echo "one error under -std=c++14: $(grep 'error:' "$work/log")"
