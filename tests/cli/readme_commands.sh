#!/usr/bin/env bash
# Every scripts/run.sh, scripts/reproduce.sh and study-binary example of README.md and docs/*.md, as written,
# accepted with --list (the plan: no GPU, nothing measured) or, for --help, as it is: exit 0.
# Examples are the README's code-block lines (backslash continuations joined) and inline code
# spans that start with one of those commands; synopses with placeholders ([...], <...>, ...,
# upper-case words such as STUDY) are not examples and are left out.
#   readme_commands.sh SOURCE_DIR BUILD_DIR
set -uo pipefail
src=${1:?source dir} build=${2:?build dir}
export PKBENCH_BUILD_DIR=$build
# Code-block lines, continuations joined; then every inline code span; of each page.
candidates() {
  local readme
  for readme in "$src/README.md" "$src"/docs/*.md; do
    [ -f "$readme" ] || continue
    awk '/^```/ { code = !code; next } code { if (sub(/\\$/, "")) { acc = acc $0; next } print acc $0; acc = "" }' "$readme"
    grep -o '`[^`]*`' "$readme" | tr -d '`'
  done
}
fail=0 n=0
while IFS= read -r line; do
  line=$(printf '%s' "$line" | sed -E 's/[[:space:]]+#.*$//; s/^[[:space:]]+//')
  # The command itself: after env assignments and an mpirun prefix (the binary is what is checked).
  cmd=$(printf '%s' "$line" | sed -E 's/^([A-Z_]+=[^ ]* +)*//; s/^bash +//; s/^mpirun .* (build\/)/\1/')
  case "$cmd" in
    */) continue ;;  # a folder named in prose (build/bin/)
    scripts/run.sh*|scripts/reproduce.sh*|build/bin/*) ;;
    *) continue ;;
  esac
  if printf '%s' "$cmd" | grep -Eq '\[|<|\.\.\.|(^| )[A-Z][A-Z_]{2,}( |$)'; then continue; fi
  eval "set -- $cmd"
  exe=$1
  shift
  case "$exe" in
    build/*) exe=$build/${exe#build/} ;;
    *) exe=$src/$exe ;;
  esac
  # A binary refuses --peer-mode=ipc|vmm outside mpirun, --list too (run.sh --list plans without
  # it the same way).
  if [[ "$exe" == "$build"/* ]]; then
    args=()
    for a in "$@"; do case "$a" in --peer-mode=ipc|--peer-mode=vmm) ;; *) args+=("$a") ;; esac; done
    set -- "${args[@]}"
  fi
  n=$((n + 1))
  extra=(--list)
  [[ " $* " == *" --help "* || " $* " == *" -h "* ]] && extra=()
  # run.sh refuses --quick with --list (the quick profile has no plan of its own): its other
  # flags are checked against the full plan.
  if [ ${#extra[@]} -gt 0 ] && [[ " $* " == *" --quick "* ]]; then
    args=()
    for a in "$@"; do [ "$a" = --quick ] || args+=("$a"); done
    set -- ${args[@]+"${args[@]}"}
  fi
  if out=$("$exe" "$@" "${extra[@]}" 2>&1); then
    echo "ok: $cmd ${extra[*]}"
  else
    echo "FAILED (exit $?): $cmd ${extra[*]}"
    printf '%s\n' "$out" | grep -iE 'error|refused|unknown' | head -n 3 | sed 's/^/    /'
    fail=1
  fi
done < <(candidates)
[ "$n" -gt 0 ] || { echo "FAILED: no example found in README.md or docs/ (is the extraction broken?)"; exit 1; }
echo "$n examples of README.md and docs/ checked"
exit "$fail"
