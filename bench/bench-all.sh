#!/usr/bin/env bash
# The benchmark table of the README: every generated matrix, every type, one run each.
#   bench/bench-all.sh [extra spmvbench options]
# Output on stdout: keep it with e.g. "mkdir -p results; ... | tee results/NAME.txt" (results/ is git-ignored).
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
for m in laplace2d ex19 laplace3d27 elastic3d powerlaw circuit; do
  timeout ${BENCH_TIMEOUT:-300} $bin/spmvbench -matrix $m "$@" || echo "spmvbench -matrix $m failed"
  echo
done
