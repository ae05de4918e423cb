#!/usr/bin/env bash
# Compares the PTX of every kernel source between a git revision and the working tree:
#   scripts/ptx-diff.sh REV       prints, per .cu file (matched by its path, or by name for moved
#                                 ones), "identical" or the kernels whose code differs
# Names nvcc derives from the file's path and hash, and basic-block/local-depot numbers (which shift
# when a kernel is added or removed before them), are normalized first. Uses the makefile's ptx target.
set -euo pipefail
rev=${1:?usage: scripts/ptx-diff.sh REV}
root=$(cd "$(dirname "$0")/.." && pwd)
old=$(mktemp -d)
trap 'rm -rf "$old"' EXIT
git -C "$root" archive "$rev" | tar -x -C "$old"
make -s -C "$old" -f "$root/makefile" ptx BUILDDIR=build >/dev/null
make -s -C "$root" ptx >/dev/null
norm() {
  grep -v '^\s*//' "$1" | sed -E 's/[0-9]*_INTERNAL_[0-9a-f]+_[0-9]+_[A-Za-z0-9]+_cu_[0-9a-f]+/INTERNAL/g;
    s/[0-9]*_GLOBAL__N__[0-9a-f]+_[0-9]+_[A-Za-z0-9]+_cu_[0-9a-f]+/GLOBAL/g; s/\$L__BB[0-9]+_/$L__BB_/g; s/__local_depot[0-9]+/__local_depot/g'
}
# the kernels (entries) of a PTX file, one "name<TAB>checksum of its normalized body" per line
kernels() {
  norm "$1" | awk '/^\.(visible )?\.entry/ { name = $NF; sub(/\($/, "", name) } name { body[name] = body[name] $0 "\n" } /^}/ { name = "" }
    END { for (k in body) print k }' | sort | while read -r k; do
    printf '%s\t%s\n' "$k" "$(norm "$1" | awk -v k="$k" '/^\.(visible )?\.entry/ { on = index($0, k) > 0 } on { print } /^}/ { on = 0 }' | md5sum | cut -c1-12)"
  done
}
for new in $(cd "$root/build/ptx" && find . -name '*.ptx' | sort); do
  o="$old/build/ptx/$new"
  if [ ! -f "$o" ]; then # moved: git's rename detection between REV and the working tree's last commit
    src=${new#./}; src=${src%.ptx}.cu
    from=$(git -C "$root" diff -M --name-status "$rev" HEAD -- src | awk -v f="$src" '$1 ~ /^R/ && $3 == f { print $2 }')
    o=$old/build/ptx/${from%.cu}.ptx
  fi
  if [ -z "$o" ] || [ ! -f "$o" ]; then echo "${new#./}: new file"; continue; fi
  if diff -q <(norm "$o") <(norm "$root/build/ptx/$new") >/dev/null; then echo "${new#./}: identical"; continue; fi
  echo "${new#./}: differs (from ${o#$old/build/ptx/}); kernels added (+), removed (-) or changed:"
  diff <(kernels "$o") <(kernels "$root/build/ptx/$new") | grep '^[<>]' | sed 's/^</  -/; s/^>/  +/' || true
done
