#!/usr/bin/env bash
# compute-sanitizer on the CUDA kernels (GPU machine only): memcheck on every parameter set of
# every shared matrix and edge case, on the value-changing operations and on the matrix-matrix
# products, initcheck on the value-changing operations, racecheck on the product tests; then
# memcheck on MATSOLVERSPMVFACTOR's (numeric phase by its kernel and by cuSPARSE, solves) on a few shared
# matrices (racecheck did not finish it in 150 s on an H100: the sync-free kernels spin); memcheck,
# initcheck and racecheck on GAMG's coarsening and tentative prolongator on the device (test_gamg
# -device, whatever the types), memcheck and racecheck on its rounds on 2 processes (test_gamg_mpi -device);
# memcheck on the SOR sweeps (test_sor, 1 and 2 processes).
# Run through scripts/gpu-bundle.sh run tests/sanitize.sh when PETSc is a bundle.
#   PETSCSPMV_TEST_TYPES="brc cmrs argcsr ipcsr ellr" tests/sanitize.sh   (PETSCSPMV_TEST_TYPES="": the factor's only)
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh >/dev/null
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
cs=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v $cs >/dev/null || cs=/usr/local/cuda/bin/compute-sanitizer
bad=0
check() { # tool program args... (launch="launcher -n 2": under MPI)
  local tool=$1 out; shift
  out=$(timeout ${SANITIZE_TIMEOUT:-600} ${launch:-} $cs --tool $tool --error-exitcode 99 "$@" 2>&1)
  local rc=$?
  echo "$tool $(basename $1) ${*:2}: $(echo "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -1) (exit $rc)"
  [ $rc = 0 ] || { bad=$((bad + 1)); echo "$out" | tail -20; }
}
# every format but spmv, which runs the others' kernels
for t in ${PETSCSPMV_TEST_TYPES-$(scripts/formats.sh | sed 's/\bspmv\b//')}; do
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
# MatScale() and MatAXPY() past cuBLAS's count (lowered) by our kernel; with 64-bit PetscInt brc's 64-bit slot offsets
check memcheck $bin/test_ops -type brc -mat_brc_backend cuda -petscspmv_blas_count_max 10
if [ "${PETSCSPMV_VARIANT:-real}" = int64 ]; then
  check memcheck $bin/test_matrices -type brc -params 0 -dir tests/matrices -mat_brc_backend cuda -petscspmv_slots64_min 0
  check memcheck $bin/test_ops -type brc -mat_brc_backend cuda -petscspmv_slots64_min 0
fi
fm=$(mktemp -d)
cp tests/matrices/1138_bus.mtx tests/matrices/LFAT5.mtx tests/matrices/arrow.mtx "$fm"/
for num in device cusparse; do
  check memcheck $bin/test_factor -type brc -dir "$fm" -vec_type cuda -chain 20000 -grid_max_unknowns 2 -petscspmv_factor_numeric $num
done
rm -rf "$fm"
# GAMG's coarsening on the device (every graph of test_gamg, a 64^3 grid among them) and its
# tentative prolongator (every case of test_gamg, shared-memory and global blocks)
for tool in memcheck initcheck racecheck; do
  check $tool $bin/test_gamg -device -gpu 1
done
# the same rounds on 2 processes (MPIAIJCUSPARSE graphs, ghost values through the PetscSF)
for tool in memcheck racecheck; do
  launch="$PETSCSPMV_MPIEXEC_N 2" check $tool $bin/test_gamg_mpi -device -gpu 1 -use_gpu_aware_mpi 0
done
# the SOR sweeps (one launch a sweep, units waiting on each other's x values): every flag on a small grid, 1 and 2 processes
# (no racecheck: the sweep kernel has no shared memory, racecheck's subject, and under racecheck its
# waits on other blocks' x values did not end in 100 s even on a 4^2 grid, as MATSOLVERSPMVFACTOR's)
check memcheck $bin/test_sor -type brc -n 10
launch="$PETSCSPMV_MPIEXEC_N 2" check memcheck $bin/test_sor -type brc -n 10 -use_gpu_aware_mpi 0
# the SpGEMM: shared-memory tables, and global tables in batches (every longer row), then racecheck on the shared tables
check memcheck $bin/test_spgemm -type brc -m 60 -mat_brc_backend cuda
check memcheck $bin/test_spgemm -type brc -m 60 -petscspmv_spgemm_shared_max 32 -petscspmv_spgemm_batch 64
check racecheck $bin/test_spgemm -type brc -m 60
echo "sanitizer runs with findings: $bad"
[ $bad = 0 ]
