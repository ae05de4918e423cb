#!/usr/bin/env bash
# The registered formats' type names, in registration order, from the one line that registers them
# in src/mat/interface/package.c (#define MATSPMV_FORMATS(F) F(<NAME>) ...): the type
# lists of the test, sanitizer, valgrind and demo scripts come from here, so a new format is its
# directory and its F(<NAME>) on that line.
#   scripts/formats.sh          brc cmrs argcsr ipcsr ellr spmv
set -eu
cd "$(dirname "$0")/.."
line=$(grep -m1 '^#define MATSPMV_FORMATS(F) ' src/mat/interface/package.c || true)
names=$(echo "${line#*(F)}" | grep -o 'F([A-Za-z0-9_]*)' | sed 's/^F(//; s/)$//' | tr 'A-Z' 'a-z' | tr '\n' ' ')
[ -n "$names" ] || { echo "scripts/formats.sh: no '#define MATSPMV_FORMATS(F) F(<NAME>) ...' line in src/mat/interface/package.c" >&2; exit 1; }
echo ${names% }
