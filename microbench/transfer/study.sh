# What the scripts know of the transfer study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_transfer_regenerate_tools() { echo pkbench_transfer_summary; }
# pk_transfer_elapsed_of DIR: the study's wall time with the build ("" if not recorded): in the
# timing.csv beside the CSV, the last row of its main run (step "transfer", or a part
# "transfer.<part>"; run.sh --as runs are named otherwise), as pkbench_report reads it.
pk_transfer_elapsed_of() {
  [ -f "$1/timing.csv" ] || return 0
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
    $c["step"] == "transfer" || index($c["step"], "transfer.") == 1 { v = $c["seconds_with_build"] } END { print v }' "$1/timing.csv"
}
# pk_transfer_regenerate DIR TOOLS (scripts/regenerate.sh): the summaries and tuning CSVs of
# every transfer.csv under DIR/transfer/ (with the study's wall time from the timing.csv beside
# it), and the peer modes side by side (peer_modes.md wherever single/, ipc/, vmm/ runs sit
# together under transfer/).
pk_transfer_regenerate() {
  local dir=$1 tools=$2 rc=0 csv d p m modes
  [ -d "$dir/transfer" ] || return 0
  while IFS= read -r csv; do
    d=$(dirname "$csv")
    # shellcheck disable=SC2046  # no elapsed time: no argument
    "$tools/pkbench_transfer_summary" "$csv" "$d" $(pk_transfer_elapsed_of "$d") > /dev/null || rc=1
  done < <(find "$dir/transfer" -name transfer.csv | sort)
  # Every folder under transfer/ holding runs of two or more modes.
  while IFS= read -r p; do
    modes=()
    for m in single ipc vmm; do [ -f "$p/$m/transfer.csv" ] && modes+=("$m=$p/$m"); done
    [ ${#modes[@]} -ge 2 ] && { "$tools/pkbench_peer_modes" "$p/peer_modes.md" "${modes[@]}" > /dev/null || rc=1; }
  done < <(find "$dir/transfer" -mindepth 2 -name transfer.csv -path '*/single/*' -printf '%h\n' | xargs -r -n1 dirname | sort -u)
  return "$rc"
}
