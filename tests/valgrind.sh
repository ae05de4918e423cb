#!/usr/bin/env bash
# valgrind's memcheck on the host side of every type (any machine; the CUDA kernels are
# tests/sanitize.sh's): the layer, the formats' host reference kernels, the solver package and the
# type-name aliases around PETSc's calls, one process (MPI's own threads report false positives).
#   PETSCSPMV_TEST_TYPES="brc spmv" tests/valgrind.sh      (about a minute per program and type)
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
bin=build/bin lib=lib/libpetscspmv.so
[ "${PETSCSPMV_VARIANT:-real}" = real ] || { bin=build/$PETSCSPMV_VARIANT/bin lib=build/$PETSCSPMV_VARIANT/lib/libpetscspmv.so; }
command -v valgrind >/dev/null || { echo "no valgrind (apt-get install valgrind)"; exit 1; }
bad=0
check() { # program args...
  local out rc
  out=$(timeout ${VALGRIND_TIMEOUT:-1200} valgrind -q --error-exitcode=99 "$@" 2>&1)
  rc=$?
  echo "memcheck $(basename "$1") ${*:2}: exit $rc"
  [ $rc = 0 ] || { bad=$((bad + 1)); echo "$out" | grep -A20 -m3 "Invalid\|uninitialised\|Mismatched\|overlap" | head -60; }
}
for t in ${PETSCSPMV_TEST_TYPES:-$(scripts/formats.sh)}; do
  host=-mat_${t}_backend\ host
  o=ellr; [ $t = ellr ] && o=brc
  check $bin/test_matrices -type $t -dir tests/matrices -params 0 $host
  check $bin/test_ops -type $t $host
  check $bin/test_compose -type $t -other $o -gpu 0 $host -mat_${o}_backend host
  check $bin/test_factor -type $t -dir tests/matrices $host
  check $bin/ex19 -da_grid_x 16 -da_grid_y 16 -dll_append $lib -dm_mat_type $t $host -pc_type mg -pc_mg_galerkin -da_refine 1
done
echo "valgrind runs with findings: $bad"
[ $bad = 0 ]
