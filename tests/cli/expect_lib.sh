# Sourced by the *_fails.sh scripts, which show that a rule's check catches each kind of offence
# on a scratch tree $work: each sets `folder` (the folder under $work the rule reads), `check`
# (the rule's script) and `clear_folder` (empties that folder but what the rule needs), then calls
# expect RC FILE CONTENT WANT: $folder holding FILE alone, the check exits RC and says WANT.
fail=0
expect() {
  local rc=$1 file=$2 content=$3 want=$4 out got
  clear_folder
  mkdir -p "$(dirname "$work/$folder/$file")"
  printf '%s\n' "$content" > "$work/$folder/$file"
  out=$(bash "$check" "$work" 2>&1)
  got=$?
  if [ "$got" != "$rc" ] || ! grep -q -- "$want" <<< "$out"; then
    echo "FAIL: $folder/$file ($content): exit $got, expected $rc with '$want':"
    echo "$out" | sed 's/^/    /'
    fail=1
  fi
}
