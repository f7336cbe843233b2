#!/usr/bin/env bash
# docs_check.sh SOURCE_DIR: README.md is at most 250 lines; every link of README.md,
# docs/**/*.md and microbench/<study>/README.md ([text](path)) and every repository path they quote in backticks (results/...,
# microbench/..., scripts/..., docs/..., kernels/..., sweeps/..., tests/..., tuning/...) exists
# in the tree; none of them cites a file outside the repository (../ above the root) or a
# DESIGN.md. Paths with placeholders (<...>, *, {...}, ...) and COMMIT:PATH citations of git
# history are left out. Prints each offence and exits 1; 0 when the docs hold.
set -uo pipefail
src=${1:?usage: docs_check.sh SOURCE_DIR}
cd "$src" || exit 2
fail=0
lines=$(wc -l < README.md)
[ "$lines" -le 250 ] || { echo "README.md: $lines lines (at most 250: details belong in docs/)"; fail=1; }
pages=(README.md)
while IFS= read -r -d '' f; do pages+=("$f"); done < <(find docs -name '*.md' -print0 2>/dev/null | sort -z)
for f in microbench/*/README.md; do [ -f "$f" ] && pages+=("$f"); done
for page in "${pages[@]}"; do
  dir=$(dirname "$page")
  # Markdown links, relative to the page.
  while IFS= read -r target; do
    case "$target" in http*|mailto:*|'#'*) continue ;; esac
    path=${target%%#*}
    [ -n "$path" ] || continue
    resolved=$(realpath -m "$dir/$path")
    case "$resolved" in "$(realpath .)"/*|"$(realpath .)") ;; *) echo "$page: link outside the repository: $target"; fail=1; continue ;; esac
    [ -e "$resolved" ] || { echo "$page: link to a missing file: $target"; fail=1; }
  done < <(grep -o '\]([^)]*)' "$page" | sed 's/^](//; s/)$//')
  # Repository paths quoted in backticks, relative to the root.
  while IFS= read -r q; do
    case "$q" in *'<'*|*'*'*|*'{'*|*'...'*|*' '*|*'$'*) continue ;; esac
    p=${q%%:*}  # FILE:LINE
    [ -e "$p" ] || { echo "$page: quotes a missing path: $q"; fail=1; }
  done < <(grep -o '`[^`]*`' "$page" | tr -d '`' | grep -E '^(results|microbench|scripts|docs|kernels|sweeps|tests|tuning|examples|cmake)/' | grep -vE '^[0-9a-f]{7,40}:')
  if grep -nE '\.\./shared|DESIGN\.md' "$page"; then echo "$page: cites a file outside the repository"; fail=1; fi
done
[ "$fail" = 0 ] && echo "README.md ($lines lines) and ${#pages[@]} pages: every link and quoted path exists"
exit "$fail"
