#!/usr/bin/env bash
# Formats the C and CUDA sources with .clang-format (PETSc's style), or with --check lists the files
# that differ and fails. The style was applied with clang-format 14; other versions format a few
# constructs otherwise, so the check is only meaningful with that major version.
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(find src include tests bench examples util \( -name '*.[ch]' -o -name '*.cu' \) | sort)
if [ "${1:-}" = --check ]; then
  bad=0
  for f in $files; do
    if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then echo "not formatted: $f (scripts/format.sh formats it)"; bad=1; fi
  done
  [ $bad = 0 ] && echo "all $(echo $files | wc -w) sources formatted"
  exit $bad
fi
clang-format -i $files
