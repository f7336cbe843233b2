#!/usr/bin/env bash
# no_lab_machinery.sh SOURCE_DIR: the product knows nothing of the machines it was developed
# on: no "lent" machine, no "device call", no $OUT output folder, no scripts/device.sh, no file
# outside the repository (../shared); the script is cited only as COMMIT:scripts/device.sh (git
# history). Read over every text file but logs (recorded output) and
# the decision records (docs/decisions: history). Prints each hit and exits 1; 0 when clean.
set -uo pipefail
src=${1:?usage: no_lab_machinery.sh SOURCE_DIR}
cd "$src" || exit 2
pats=(-e '\b[Ll]ent\b' -e 'device calls?\b' -e '\$OUT\b' -e '\$\{OUT\b' -e '(^|[^:0-9a-f])scripts/device\.sh' -e '\.\./shared/')
if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # The product is what git tracks or would track: an ignored folder (a build, staged
  # dependencies, a developer's own tools) is not part of it.
  hits=$(git ls-files -z --cached --others --exclude-standard |
    grep -zvE '(\.log$|(^|/)decisions/|no_lab_machinery\.sh$)' |
    xargs -0 -r grep -nIHE "${pats[@]}" -- 2>/dev/null)
else
  hits=$(grep -rnIE --exclude='*.log' --exclude-dir=.git --exclude-dir='build*' --exclude-dir=.deps \
    --exclude-dir=.reftools --exclude-dir=decisions --exclude=no_lab_machinery.sh "${pats[@]}" . )
fi
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | cut -c1-200
  echo "lab machinery or lab talk in the product (above)"
  exit 1
fi
echo "no lab machinery: no lent machines, device calls, \$OUT, scripts/device.sh or ../shared"
