#!/usr/bin/env bash
# scripts_study_names.sh SOURCE_DIR: no file under scripts/ names a study: what a script does for
# one study is declared in the study's folder (microbench/<study>/study.sh, sourced by
# scripts/lib.sh for every study of microbench/studies.list), so adding a study touches its two
# folders and its line of the list. The studies: those of microbench/studies.list and the
# folders of microbench/ with a CMakeLists.txt. A study's name is any of them standing alone
# between characters that are not letters or digits, in any case ("fused", "pk_fused_x",
# "$dir/transfer/x.csv", "PK_SEQPAR_Y"), on the code of a file: from a '#' that starts a line or
# follows a blank, the rest of its line is a comment and not read. Prints each offence and exits
# 1; 0 when scripts/ names none.
set -uo pipefail
src=${1:?usage: scripts_study_names.sh SOURCE_DIR}
cd "$src" || exit 2

studies=()
[ -f microbench/studies.list ] && mapfile -t studies < <(sed -e 's/#.*//' -e 's/[[:space:]]//g' -e '/^$/d' microbench/studies.list)
[ ${#studies[@]} -gt 0 ] || { echo "no study read from microbench/studies.list (is the scan broken?)"; exit 2; }
for d in microbench/*/; do
  s=$(basename "$d")
  [ -f "$d/CMakeLists.txt" ] && ! printf '%s\n' "${studies[@]}" | grep -qx -- "$s" && studies+=("$s")
done
names=$(IFS='|'; echo "${studies[*]}")

# hits FILE: the lines of FILE's code naming a study, as "LINE: NAME".
hits() {
  sed -E 's/(^|[[:space:]])#.*$//' "$1" |
    grep -noiE "(^|[^[:alnum:]])($names)([^[:alnum:]]|$)" |
    sed -E "s/^([0-9]+):[^[:alnum:]]*([[:alnum:]]+).*/\1: \2/"
}

fail=0 n=0
while IFS= read -r f; do
  n=$((n + 1))
  while IFS= read -r hit; do
    echo "$f:$hit: names a study (declare it in microbench/<study>/study.sh, named pk_<study>_*)"
    fail=1
  done < <(hits "$f")
done < <(find scripts -type f | sort)
[ "$fail" = 0 ] && echo "scripts/: none of its $n files names a study (${#studies[@]}: ${studies[*]})"
exit "$fail"
