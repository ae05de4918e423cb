#!/usr/bin/env bash
# The registered formats' type names, in registration order, from the one line per format in
# src/mat/impls/spmvlayer/types/formats.c (MatSpmvFormat_<NAME>): the type lists of the test,
# sanitizer, valgrind and demo scripts come from here, so a new format is its directory and that line.
#   scripts/formats.sh          brc cmrs argcsr ipcsr ellr spmv
set -eu
cd "$(dirname "$0")/.."
line=$(grep -m1 'MatSpmvFormats\[\] *=' src/mat/impls/spmvlayer/types/formats.c)
names=$(echo "$line" | grep -o 'MatSpmvFormat_[A-Za-z0-9_]*' | sed 's/^MatSpmvFormat_//' | tr 'A-Z' 'a-z' | tr '\n' ' ')
[ -n "$names" ] || { echo "scripts/formats.sh: no MatSpmvFormats[] line in src/mat/impls/spmvlayer/types/formats.c" >&2; exit 1; }
echo ${names% }
