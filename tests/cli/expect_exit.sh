#!/usr/bin/env bash
# expect_exit.sh CODES REGEX CMD...: CMD exits with one of CODES (comma list) and its
# output matches REGEX (extended).
codes=$1 re=$2
shift 2
out=$("$@" 2>&1)
rc=$?
case ",$codes," in *",$rc,"*) ;; *) echo "exit $rc, expected $codes; output:"; echo "$out"; exit 1 ;; esac
echo "$out" | grep -Eq -- "$re" || { echo "output does not match /$re/:"; echo "$out"; exit 1; }
echo "exit $rc as expected"
