# What the scripts know of the transfer study (scripts/lib.sh sources it: declarations only).
# shellcheck shell=bash
pk_transfer_regenerate_tools() { echo pkbench_transfer_summary; }
pk_transfer_derive_targets() { echo pkbench_transfer_ref; }
pk_transfer_tuned=1
# pk_transfer_regenerate DIR TOOLS (scripts/regenerate.sh): the summaries and tuning CSVs of
# every transfer.csv under DIR/transfer/ (the tool reads the study's wall time from the timing.csv
# beside it), and the peer modes side by side (peer_modes.md wherever single/, ipc/, vmm/ runs sit
# together under transfer/).
pk_transfer_regenerate() {
  local dir=$1 tools=$2 rc=0 csv d p m modes
  [ -d "$dir/transfer" ] || return 0
  while IFS= read -r csv; do
    d=$(dirname "$csv")
    "$tools/pkbench_transfer_summary" "$csv" "$d" > /dev/null || rc=1
  done < <(find "$dir/transfer" -name transfer.csv | sort)
  # Every folder under transfer/ holding runs of two or more modes.
  while IFS= read -r p; do
    modes=()
    for m in single ipc vmm; do [ -f "$p/$m/transfer.csv" ] && modes+=("$m=$p/$m"); done
    [ ${#modes[@]} -ge 2 ] && { "$tools/pkbench_peer_modes" "$p/peer_modes.md" "${modes[@]}" > /dev/null || rc=1; }
  done < <(find "$dir/transfer" -mindepth 2 -name transfer.csv -path '*/single/*' -printf '%h\n' | xargs -r -n1 dirname | sort -u)
  return "$rc"
}
# scripts/run.sh's one-GPU profile: the mechanisms against the GPU's own memory.
pk_transfer_one_gpu() {
  local dir=$1
  run_study transfer "$dir/parts/transfer.local-fig2.csv" --preset=fig2 --patterns=local
  run_study transfer "$dir/parts/transfer.local-fig3.csv" --preset=fig3 --patterns=local
  run_study transfer "$dir/parts/transfer.local.csv" --preset=local
  merge transfer "$dir"/parts/transfer.local*.csv
}
# scripts/run.sh --quick on several GPUs: Figure 2's sweep one way (every mechanism and size),
# the Figure-3 preset, the local-copy ceiling.
pk_transfer_quick() {
  local dir=$1
  run_study transfer "$dir/parts/transfer.quick-fig2.csv" --preset=fig2 --patterns=one_way
  run_study transfer "$dir/parts/transfer.quick-fig3.csv" --preset=fig3
  run_study transfer "$dir/parts/transfer.quick-local.csv" --preset=local
  merge transfer "$dir"/parts/transfer.quick-*.csv
}
# After scripts/run.sh's main run, where it exited 0: nvbandwidth, the study's reference tool,
# in the same run on the same bytes: pkbench_transfer_ref --run runs it on the testcases matching
# the CSV's rows (microbench/transfer/transfer_ref.h), keeps its --json output beside the CSV and
# merges its figures into the rows (ref_tool, ref_gbps, ref_ratio). Found as $PKBENCH_NVBANDWIDTH
# or on PATH (scripts/build-ref-tools.sh builds it); without it the rows carry no reference.
pk_transfer_after_main() {
  local dir=$1 nvb
  [ "$last_rc" = 0 ] || return 0
  nvb=${PKBENCH_NVBANDWIDTH:-$(command -v nvbandwidth || true)}
  if [ -z "$nvb" ] || [ ! -x "$nvb" ]; then
    pk_log "transfer: nvbandwidth not found (PKBENCH_NVBANDWIDTH or PATH; scripts/build-ref-tools.sh builds it): no reference figures"
    return 0
  fi
  "$(pk_bin transfer_ref)" --csv="$dir/transfer.csv" --buffer=512M --run="$nvb" --json="$dir/nvbandwidth.json" \
    2>> "$dir/transfer.log" | tee -a "$dir/transfer.log"
  [ "${PIPESTATUS[0]}" = 0 ] ||
    { pk_log "transfer: nvbandwidth or the merge failed (see $(shown "$dir/transfer.log")): the rows carry no reference"; return 1; }
  # What ran, and the merge alone again from the kept output (no GPU needed).
  { echo "build/bin/pkbench_transfer_ref --csv=$(shown "$dir/transfer.csv") --buffer=512M --run=$(shown "$nvb") --json=$(shown "$dir/nvbandwidth.json")"
    echo "#   or, from its kept output: build/bin/pkbench_transfer_ref --csv=$(shown "$dir/transfer.csv") --buffer=512M --nvbandwidth=$(shown "$dir/nvbandwidth.json")"
  } >> "$dir/command.txt"
}
# scripts/plot.sh: Figures 2 and 3 of one transfer CSV, beside it (exit 0 where it drew one;
# plot.sh's helpers split_csv, distinct, first, styles, title_of and $work).
pk_transfer_draw() {
  local csv=$1 fig_dir tmp d p s term drew=1
  fig_dir=$(dirname "$csv")
  tmp=$(mktemp -d -p "$work")
  # NVLink figures: the local pattern (a GPU's own memory: one-GPU machines) has no line rate
  # to be a percentage of, and is left out.
  split_csv "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' "sweep mechanism direction pattern" "message_bytes pct_of_line_rate gbps"
  split_csv "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' "sweep mechanism direction message_bytes" "sms gbps pct_of_line_rate"
  for f in "$tmp"/*.dat; do [ -f "$f" ] && sort -g -k1,1 -o "$f" "$f"; done
  mechs=$(distinct "$csv" 'v("pattern")!="local"' mechanism)
  style=$(styles "$mechs")
  line_rate=$(first "$csv" line_rate_gbps)
  ce_best() {  # direction -> the copy engine's best one-way GB/s (0 if not measured)
    awk -F, -v d="$1" 'NR==1{for(i=1;i<=NF;i++)c[$i]=i;next} $c["status"]=="ok" && $c["mechanism"]=="ce" &&
      $c["direction"]==d && $c["pattern"]=="one_way" && $c["gbps"]>m {m=$c["gbps"]} END{print m+0}' "$csv"
  }
  # Per panel, the mechanisms that have a curve there.
  vars="data='$tmp'; gpu='$(title_of "$csv")'; line_rate=${line_rate:-0}; $style"
  f2dirs=$(distinct "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' direction)
  f2pats=$(distinct "$csv" 'v("sweep")=="fig2" && v("pattern")!="local"' pattern)
  f3dirs=$(distinct "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' direction)
  f3sizes=$(distinct "$csv" 'v("sweep")=="fig3" && v("pattern")!="local"' message_bytes | tr ' ' '\n' | sort -n | tr '\n' ' ' | sed 's/ $//')
  for d in $(distinct "$csv" 'v("pattern")!="local"' direction); do
    vars="$vars ce_$d=$(ce_best "$d");"
    for p in $f2pats; do
      vars="$vars m2_${d}_$p='$(distinct "$csv" "v(\"sweep\")==\"fig2\" && v(\"direction\")==\"$d\" && v(\"pattern\")==\"$p\"" mechanism)';"
    done
    for s in $f3sizes; do
      vars="$vars m3_${d}_$s='$(distinct "$csv" "v(\"sweep\")==\"fig3\" && v(\"pattern\")!=\"local\" && v(\"direction\")==\"$d\" && v(\"message_bytes\")==\"$s\"" mechanism)';"
    done
  done
  for term in png svg; do
    if [ -n "$f2dirs" ]; then
      gnuplot -e "$vars out='$fig_dir/fig2_bandwidth_vs_message.$term'; term='$term'; dirs='$f2dirs'; pats='$f2pats'" "$PKBENCH_ROOT/microbench/transfer/fig2.gp"
      drew=0
    fi
    if [ -n "$f3dirs" ]; then
      gnuplot -e "$vars out='$fig_dir/fig3_bandwidth_vs_sms.$term'; term='$term'; dirs='$f3dirs'; sizes='$f3sizes'" "$PKBENCH_ROOT/microbench/transfer/fig3.gp"
      drew=0
    fi
  done
  return "$drew"
}
# scripts/plot.sh: every transfer CSV of the study (its runs under scale/, peer-modes/<mode>/ too).
pk_transfer_plot() {
  local csv drew=1
  [ -d "$1/transfer" ] || return 1
  while IFS= read -r csv; do pk_transfer_draw "$csv" && drew=0; done < <(find "$1/transfer" -name transfer.csv | sort)
  return "$drew"
}
# scripts/reproduce.sh's steps of the study (its plan's format; each line led by its place in
# the plan, the study's name left out).
pk_transfer_reproduce_steps() {
  cat <<'EOF'
10|fig2|Figure 2: bandwidth vs message size, every mechanism, push/pull, one-way/bidir|2|30|--preset=fig2||transfer/transfer.csv
20|fig3|Figure 3: bandwidth vs SMs at 2/16/64 KiB|2|25|--preset=fig3||transfer/transfer.csv
30|table1|Table 1: per-mechanism peak, smallest message and fewest SMs (knob grid, mixed, local ceiling)|2|25|--preset=tune;--preset=mixed;--preset=local||transfer/transfer.csv
50|scale|Fan-out / fan-in / all-pairs over 2, 4 and 8 GPUs (points above the GPU count are skipped)|2|5|--preset=scale||transfer/transfer.csv
200|paper8|The paper's 8-GPU numbers (every figure at 8 GPUs)|8|0|--preset=scale --gpu-counts=8||transfer/transfer.csv
EOF
}
