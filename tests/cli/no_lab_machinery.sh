#!/usr/bin/env bash
# no_lab_machinery.sh SOURCE_DIR: the product knows nothing of the machines it was developed
# on: no "lent" machine, no "device call", no $OUT output folder, no scripts/device.sh, no file
# outside the repository (../shared); the script is cited only as COMMIT:scripts/device.sh (git
# history). Read over every text file but logs (recorded output) and
# the decision records (docs/decisions: history). Prints each hit and exits 1; 0 when clean.
set -uo pipefail
src=${1:?usage: no_lab_machinery.sh SOURCE_DIR}
cd "$src" || exit 2
hits=$(grep -rnIE --exclude='*.log' --exclude-dir=.git --exclude-dir='build*' --exclude-dir=.deps \
  --exclude-dir=.reftools --exclude-dir=decisions --exclude=no_lab_machinery.sh \
  -e '\b[Ll]ent\b' -e 'device calls?\b' -e '\$OUT\b' -e '\$\{OUT\b' -e '(^|[^:0-9a-f])scripts/device\.sh' -e '\.\./shared/' . )
if [ -n "$hits" ]; then
  printf '%s\n' "$hits" | cut -c1-200
  echo "lab machinery or lab talk in the product (above)"
  exit 1
fi
echo "no lab machinery: no lent machines, device calls, \$OUT, scripts/device.sh or ../shared"
