#!/usr/bin/env bash
# tuning_table_hostile.sh WORK_DIR BINARY...: each study binary given a hostile --tuning-table
# (100 000 nested brackets, a lone '{', one byte, a table of the wrong types) refuses it with
# exit 2 naming the flag: never a crash (exit 134/139 before the reader had a depth limit and
# bounds checks).
work=$1
shift
rm -rf "$work"
mkdir -p "$work"
head -c 100000 /dev/zero | tr '\0' '[' > "$work/deep.json"
printf '{' > "$work/brace.json"
printf '1' > "$work/one_byte.json"
printf '{"schema_version": 1, "table": "collectives", "peer_modes": "ipc", "rows": {}}' > "$work/types.json"
# shellcheck source=/dev/null
source "$(dirname "$0")/check_lib.sh"
for bin in "$@"; do
  for f in deep brace one_byte types; do
    check "$(basename "$bin") $f" 2 "--tuning-table=$work/$f.json" "$bin" "--tuning-table=$work/$f.json" --list
  done
done
exit $((fails > 0))
