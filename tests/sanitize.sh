#!/usr/bin/env bash
# compute-sanitizer on the CUDA kernels (GPU machine only): memcheck on every parameter set of
# every shared matrix and edge case, on the value-changing operations and on the matrix-matrix
# products, initcheck on the value-changing operations, racecheck on the product tests. Run through scripts/gpu-bundle.sh run tests/sanitize.sh when PETSc is a bundle.
#   PETSCSPMV_TEST_TYPES="brc cmrs argcsr ipcsr ellr" tests/sanitize.sh
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
cs=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
bad=0
check() { # tool program args...
  local tool=$1 out; shift
  out=$(timeout ${SANITIZE_TIMEOUT:-600} $cs --tool $tool --error-exitcode 99 "$@" 2>&1)
  local rc=$?
  echo "$tool $(basename $1) ${*:2}: $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1) (exit $rc)"
  [ $rc = 0 ] || { bad=$((bad + 1)); echo "$out" | tail -20; }
}
for t in ${PETSCSPMV_TEST_TYPES:-brc cmrs argcsr ipcsr ellr}; do
  check memcheck $bin/test_matrices -type $t -dir tests/matrices -mat_${t}_backend cuda
  check memcheck $bin/test_ops -type $t -mat_${t}_backend cuda
  # device memory read before it is written (the layouts' padding, the build's scratch)
  check initcheck $bin/test_ops -type $t -mat_${t}_backend cuda
  o=ellr; [ $t = ellr ] && o=brc
  check memcheck $bin/test_compose -type $t -other $o -gpu 1 -mat_${t}_backend cuda -mat_${o}_backend cuda
  check racecheck $bin/test_matrices -type $t -dir tests/matrices -mat_${t}_backend cuda
  # a 64^3 grid: the layer's column plan on the device (frequency histogram, far-group share, row statistics)
  check memcheck $bin/test_order -type $t -mat_${t}_backend cuda
  check racecheck $bin/test_order -type $t -mat_${t}_backend cuda
done
echo "sanitizer runs with findings: $bad"
[ $bad = 0 ]
