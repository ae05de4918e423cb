#!/usr/bin/env bash
# The CMRS parameter sweep behind the README's defaults: every generated matrix, aijcusparse and
# brc for reference, the basic kernel at heights 1-8 (lanes automatic; the paper's whole warp at
# height 4), sorted, and the modified kernel at heights 8 and 16, modulo 4 and 8, sorted.
#   examples/sweep-cmrs.sh [extra spmvbench options]     (PETSCSPMV_VARIANT=single for float)
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
types=aijcusparse,brc,cmrs@b1,cmrs@b2,cmrs@b4,cmrs@b8,cmrs@b4w32,cmrs@b2s,cmrs@m8,cmrs@m16,cmrs@m16m4,cmrs@m16s
opts=(-b1_mat_cmrs_height 1 -b2_mat_cmrs_height 2 -b4_mat_cmrs_height 4 -b8_mat_cmrs_height 8
  -b4w32_mat_cmrs_height 4 -b4w32_mat_cmrs_lanes 32 -b2s_mat_cmrs_height 2 -b2s_mat_cmrs_sort
  -m8_mat_cmrs_kernel modified -m8_mat_cmrs_height 8 -m16_mat_cmrs_kernel modified -m16_mat_cmrs_height 16
  -m16m4_mat_cmrs_kernel modified -m16m4_mat_cmrs_height 16 -m16m4_mat_cmrs_modulo 4
  -m16s_mat_cmrs_kernel modified -m16s_mat_cmrs_height 16 -m16s_mat_cmrs_sort)
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
for m in laplace2d ex19 laplace3d27 elastic3d powerlaw circuit; do
  timeout ${BENCH_TIMEOUT:-300} $bin/spmvbench -matrix $m -types $types "${opts[@]}" "$@" || echo "spmvbench -matrix $m failed"
  echo
done
