#!/usr/bin/env bash
# no_cuda_headers.sh CXX SOURCE_DIR CLI11_INCLUDE FILE...: the plain C++ libraries' sources (no CUDA
# include folder is given to them) reach no CUDA header. Where CUDA lives only under
# /usr/local/cuda such an include fails to build, and a machine that also has
# /usr/local/include/cuda_runtime.h (as CI's does) would never show it: cli.h once pulled in
# cuda_runtime.h through args.h this way. Each FILE is compiled with the include tree listed (-H);
# prints each offence and exits 1, 0 when none reaches CUDA.
set -uo pipefail
cxx=${1:?usage: no_cuda_headers.sh CXX SOURCE_DIR CLI11_INCLUDE FILE...} src=${2:?} cli=${3:?}
shift 3
# A system folder (Debian's CLI11 is in /usr/include) is searched already; naming it again with
# -isystem reorders the search and breaks libstdc++'s #include_next.
cli_flags=(-isystem "$cli")
case "$cli" in /usr/include | /usr/local/include) cli_flags=() ;; esac
fail=0
for f in "$@"; do
  tree=$("$cxx" -std=c++20 -fsyntax-only -H -I"$src" -I"$src/tuning/include" ${cli_flags[@]+"${cli_flags[@]}"} "$src/$f" 2>&1) ||
    { echo "$f: does not compile on its own:"; echo "$tree" | grep -v '^\.' | head -5; fail=1; continue; }
  hits=$(echo "$tree" | grep -E '^\.+ .*/cuda[A-Za-z_]*\.h$')
  [ -z "$hits" ] || { echo "$f reaches a CUDA header:"; echo "$hits" | head -3; fail=1; }
done
[ "$fail" = 0 ] && echo "$# plain C++ sources, no CUDA header reached"
exit "$fail"
