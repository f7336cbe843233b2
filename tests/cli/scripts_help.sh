#!/usr/bin/env bash
# scripts_help.sh SOURCE_DIR: every script in scripts/ (lib.sh is sourced, not run) answers
# --help with its usage (naming itself) and exit 0, before it looks at or changes anything: run
# with a build folder that does not exist and a fresh HOME, any step it took (a build, a
# download, a deletion) would show as a slow exit, a new file or an error.
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0 n=0
for f in "$src"/scripts/*.sh; do
  name=$(basename "$f")
  [ "$name" = lib.sh ] && continue
  n=$((n + 1))
  out=$(cd "$work" && HOME=$work PKBENCH_BUILD_DIR=$work/no-build PKBENCH_NO_INSTALL=1 timeout 30 bash "$f" --help 2>&1)
  rc=$?
  why=
  if [ "$rc" != 0 ]; then
    why="exit $rc"
  elif ! grep -q "scripts/$name" <<< "$out"; then
    why="the usage does not name scripts/$name"
  elif [ -e "$work/no-build" ] || [ "$(ls -A "$work")" != "" ]; then
    why="it wrote files: $(ls -A "$work" | head -3 | tr '\n' ' ')"
  fi
  if [ -n "$why" ]; then
    echo "FAIL $name --help: $why"
    printf '%s\n' "$out" | head -10 | sed 's/^/    /'
    fails=$((fails + 1))
  else
    echo "ok   $name --help"
  fi
done
[ "$n" -gt 0 ] || { echo "no script found under $src/scripts"; exit 1; }
exit $((fails > 0))
