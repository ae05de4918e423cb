#!/usr/bin/env bash
# The CMRS parameter sweep behind the README's defaults and its check of the paper's model:
# every generated matrix; aijcusparse and brc for reference; the basic kernel with automatic lanes
# at heights 1-8 and sorted; the paper's whole-warp basic kernel at heights 1-16 (Eq. 5.2 predicts
# its speedup over height 1); the modified kernel at heights 8 and 16, modulo 4 and 8, sorted.
#   examples/sweep-cmrs.sh [extra spmvbench options]     (PETSCSPMV_VARIANT=single for float)
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
configs=( # name: options
  "b1: -mat_cmrs_height 1" "b2: -mat_cmrs_height 2" "b4: -mat_cmrs_height 4" "b8: -mat_cmrs_height 8"
  "b2s: -mat_cmrs_height 2 -mat_cmrs_sort"
  "w1: -mat_cmrs_height 1 -mat_cmrs_lanes 32" "w2: -mat_cmrs_height 2 -mat_cmrs_lanes 32" "w4: -mat_cmrs_height 4 -mat_cmrs_lanes 32"
  "w8: -mat_cmrs_height 8 -mat_cmrs_lanes 32" "w16: -mat_cmrs_height 16 -mat_cmrs_lanes 32"
  "m8: -mat_cmrs_kernel modified -mat_cmrs_height 8" "m16: -mat_cmrs_kernel modified -mat_cmrs_height 16"
  "m16m4: -mat_cmrs_kernel modified -mat_cmrs_height 16 -mat_cmrs_modulo 4" "m16s: -mat_cmrs_kernel modified -mat_cmrs_height 16 -mat_cmrs_sort")
types=aijcusparse,brc opts=()
for c in "${configs[@]}"; do
  name=${c%%:*}
  types+=,cmrs@$name
  for o in ${c#*:}; do case $o in -*) opts+=("-${name}_${o#-}") ;; *) opts+=("$o") ;; esac; done
done
for m in ${SWEEP_MATRICES:-laplace2d ex19 laplace3d27 elastic3d powerlaw circuit}; do
  timeout ${BENCH_TIMEOUT:-300} $bin/spmvbench -matrix $m -types $types "${opts[@]}" "$@" || echo "spmvbench -matrix $m failed"
  echo
done
