#!/usr/bin/env bash
# The benchmark table of the README: every generated matrix, every type, one run each.
#   examples/bench-all.sh [extra spmvbench options]
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh
for m in laplace2d laplace3d27 ex19 powerlaw; do
  timeout ${BENCH_TIMEOUT:-300} build/bin/spmvbench -matrix $m "$@" || echo "spmvbench -matrix $m failed"
  echo
done
