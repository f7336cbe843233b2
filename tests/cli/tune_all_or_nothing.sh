#!/usr/bin/env bash
# tune_all_or_nothing.sh PKBENCH_TUNE FIXTURES: pkbench_tune writes every table or none. A run whose
# later input is malformed exits 2 and leaves the output folder as it was: no table, no temporary
# file, and an earlier run's tables byte for byte.
set -u
tune=$1 fixtures=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'study,size_bytes\ntransfer,"unterminated\n' > "$tmp/bad.csv"
fail() { echo "FAIL: $*"; ls -la "$1" 2>/dev/null; exit 1; }

# A fresh folder: nothing written when the second source is malformed.
mkdir "$tmp/fresh"
"$tune" --out "$tmp/fresh" "$fixtures/transfer_fixture.csv" "$tmp/bad.csv" > "$tmp/log" 2>&1
rc=$?
[ "$rc" = 2 ] || { cat "$tmp/log"; fail "$tmp/fresh" "exit $rc, expected 2"; }
grep -q "bad.csv" "$tmp/log" || { cat "$tmp/log"; fail "$tmp/fresh" "the message does not name bad.csv"; }
[ -z "$(ls -A "$tmp/fresh")" ] || fail "$tmp/fresh" "files left after a failed run"

# An earlier good run: its tables stay untouched.
mkdir "$tmp/kept"
"$tune" --out "$tmp/kept" "$fixtures/transfer_fixture.csv" > "$tmp/log" 2>&1 || { cat "$tmp/log"; fail "$tmp/kept" "the good run failed"; }
before=$(cd "$tmp/kept" && ls -A && cat ./* | cksum)
[ -n "$(ls -A "$tmp/kept")" ] || fail "$tmp/kept" "the good run wrote nothing"
"$tune" --out "$tmp/kept" "$fixtures/transfer_fixture.csv" "$tmp/bad.csv" > "$tmp/log" 2>&1
rc=$?
[ "$rc" = 2 ] || { cat "$tmp/log"; fail "$tmp/kept" "exit $rc, expected 2"; }
after=$(cd "$tmp/kept" && ls -A && cat ./* | cksum)
[ "$before" = "$after" ] || fail "$tmp/kept" "the earlier tables changed"
echo "all or nothing: ok"
