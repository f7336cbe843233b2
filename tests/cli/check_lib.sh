# Sourced by the CLI test scripts.
# check NAME CODES REGEX CMD...: runs CMD; the case passes when its exit code is one of CODES
# (comma-separated), its output matches the extended REGEX and, where CHECK_MAX_CHARS is set,
# the output is at most that long. Each failure prints the reason and the output's start, and
# counts in $fails; a script ends with `exit $((fails > 0))`.
fails=0
check() {
  local name=$1 codes=$2 re=$3
  shift 3
  local out rc why=
  out=$("$@" 2>&1)
  rc=$?
  if [[ ",$codes," != *",$rc,"* ]]; then
    why="exit $rc, expected $codes"
  elif ! grep -Eq -- "$re" <<<"$out"; then
    why="output does not match /$re/"
  elif [ -n "${CHECK_MAX_CHARS:-}" ] && [ ${#out} -gt "$CHECK_MAX_CHARS" ]; then
    why="${#out} characters of output"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name: $why"
    printf '%s\n' "${out:0:2000}" | sed 's/^/    /'
    fails=$((fails + 1))
    return
  fi
  echo "ok   $name (exit $rc)"
}
