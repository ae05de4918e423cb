#!/usr/bin/env bash
# The whole petscspmv test suite (make check); last line "N passed, N failed".
#   tests/run.sh [-k pattern]     only the cases whose name contains pattern ('a|b': a or b); more: tests/README.md
set -u
cd "$(dirname "$0")/.."
root=$PWD
. scripts/petsc-env.sh
filter=
[ "${1:-}" = -k ] && filter=${2:-}
if [ "${PETSCSPMV_VARIANT:-real}" = real ]; then builddir=${BUILDDIR:-build} libdir=${LIBDIR:-lib}
else builddir=${BUILDDIR:-build/$PETSCSPMV_VARIANT} libdir=${LIBDIR:-$builddir/lib}; fi
bin=$root/$builddir/bin
lib=$root/$libdir/libpetscspmv.so
mats=$root/tests/matrices
logs=$root/$builddir/test-logs
mkdir -p "$logs"
export logs # the helpers below run in child shells (run: bash -c): their files go here, not to /
np2="$PETSCSPMV_MPIEXEC_N 2" # the launcher (scripts/petsc-env.sh: $MPIEXEC, else PETSc's), --oversubscribe where Open MPI's
types=${PETSCSPMV_TEST_TYPES:-$(scripts/formats.sh)} # every registered format
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"

gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then gpu=1; fi
echo "petscspmv tests: PETSC_DIR=$PETSC_DIR (variant $PETSCSPMV_VARIANT), GPU: $([ $gpu = 1 ] && nvidia-smi -L | head -1 || echo none, host reference kernels)"

pass=0 fail=0 skip=0
# PETSCSPMV_TEST_NAMES=file: only the cases named by its lines; PETSCSPMV_TEST_CLAIMS=dir: only those
# this copy claims first in dir, shared with other copies (tests/run-gpus.sh)
selected() { # name: does it contain one of the |-separated patterns of -k?
  local pattern patterns
  if [ -n "${PETSCSPMV_TEST_NAMES:-}" ] && ! grep -qxF -- "$1" "$PETSCSPMV_TEST_NAMES"; then return 1; fi
  IFS='|' read -ra patterns <<<"$filter"
  [ ${#patterns[@]} = 0 ] && return 0
  for pattern in "${patterns[@]}"; do case "$1" in *"$pattern"*) return 0 ;; esac; done
  return 1
}
run() { # name command...
  local name=$1; shift
  selected "$name" || return 0
  if [ -n "${PETSCSPMV_TEST_LIST:-}" ]; then echo "CASE $name"; return 0; fi # names only
  # copies sharing PETSCSPMV_TEST_CLAIMS (tests/run-gpus.sh) each run the cases they claim first
  if [ -n "${PETSCSPMV_TEST_CLAIMS:-}" ]; then mkdir "$PETSCSPMV_TEST_CLAIMS/$(printf '%s' "$name" | md5sum | cut -c1-32)" 2>/dev/null || return 0; fi
  local log="$logs/$(echo "$name" | tr -c 'A-Za-z0-9_.-' _).log" t0=$SECONDS limit=${PETSCSPMV_TEST_TIMEOUT:-900}
  # case_limit=s before run: a case known to take seconds, bounded closer (a stop fails sooner)
  if [ -n "${case_limit:-}" ] && [ "$case_limit" -lt "$limit" ]; then limit=$case_limit; fi
  if timeout "$limit" bash -c '"$@"' _ "$@" >"$log" 2>&1; then
    pass=$((pass + 1)); echo "PASS $name ($((SECONDS - t0)) s)"
  else
    fail=$((fail + 1)); echo "FAIL $name ($((SECONDS - t0)) s, log: $log)"; failure_lines "$log" 15 | sed 's/^/     /'
  fi
}
skip() { skip=$((skip + 1)); echo "SKIP $1"; }

# the Newton and linear iteration counts of a stock-program run (error norms left out)
iters() { grep -E "Linear solve converged|Nonlinear solve converged|Number of SNES iterations|iterations [0-9]+$" "$1" | sed -E 's/ due to [A-Z_]+//; s/Norm of error [^ ]+ //'; }
same_iterations() { # program-name reference-args -- test-args
  local prog=$1; shift
  local ref=() tst=() side=ref
  for a in "$@"; do
    if [ "$a" = -- ]; then side=tst; continue; fi
    if [ $side = ref ]; then ref+=("$a"); else tst+=("$a"); fi
  done
  local dir
  dir=$(mktemp -d "$logs/$prog.XXXXXX")
  "${ref[@]}" >"$dir/ref.log" 2>&1 || { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  "${tst[@]}" >"$dir/test.log" 2>&1 || { echo "test run failed"; cat "$dir/test.log"; return 1; }
  iters "$dir/ref.log" >"$dir/ref.it"; iters "$dir/test.log" >"$dir/test.it"
  [ -s "$dir/ref.it" ] || { echo "no iteration counts in the reference run"; return 1; }
  local tol=${ITER_TOL:-0}
  # single precision: products summed in another order change GMRES's rounding
  [ "${PETSCSPMV_VARIANT:-real}" = single ] && [ "$tol" = 0 ] && tol=2
  if [ "$tol" != 0 ]; then
    # linear counts may move by up to tol% (at least 1): rows summed in another order (atomics, a
    # different kernel) change the rounding; Newton counts and the number of solves must match
    paste -d'|' "$dir/ref.it" "$dir/test.it" | awk -F'|' -v tol="$tol" '
      { na = split($1, a, " "); nb = split($2, b, " "); ra = a[na]; rb = b[nb]; $1 = $1 }
      { sub(/[0-9]+$/, "", $1); sub(/[0-9]+$/, "", $2) }
      $1 != $2 { bad = 1 }
      $1 ~ /Nonlinear|SNES/ && ra != rb { bad = 1 }
      ra != rb && (ra - rb > tol / 100 * ra + 1 || rb - ra > tol / 100 * ra + 1) { bad = 1 }
      END { exit bad }' && [ "$(wc -l <"$dir/ref.it")" = "$(wc -l <"$dir/test.it")" ] ||
      { diff "$dir/ref.it" "$dir/test.it"; echo "iteration counts differ by more than $tol% (reference < > $prog)"; return 1; }
  else
    diff "$dir/ref.it" "$dir/test.it" || { echo "iteration counts differ (reference < > $prog)"; return 1; }
  fi
  echo "same iterations:"; cat "$dir/test.it"
}
# KSPSolve's host<->device copies (counts) in a -log_view -log_view_gpu_time log and the linear
# iterations of the run: "cpu2gpu gpu2cpu iterations"
copies() {
  local its
  its=$(grep -Eo "Linear solve (converged|did not converge).* iterations [0-9]+" "$1" | awk '{ s += $NF } END { print s + 0 }')
  awk -v its="$its" '$1 == "KSPSolve" { print $(NF-4), $(NF-2), its }' "$1"
}
# tolerance extra reference-args -- test-args. Tolerance 0: the test's KSPSolve makes no more copies
# than the reference's plus extra uploads (runs that take the same iterations: ILU, Jacobi,
# polynomial; extra: a format's one-time upload of a plan made on the host). Tolerance
# t%: no more copies per linear iteration than the reference's plus t% (GAMG: its iteration
# counts, and with them aijcusparse's own copy counts, vary from run to run; a copy per product
# or per level setup would still show as several percent)
no_more_copies() {
  local tol=$1 extra=$2 ref=() tst=() side=ref
  shift 2
  for a in "$@"; do
    if [ "$a" = -- ]; then side=tst; continue; fi
    if [ $side = ref ]; then ref+=("$a"); else tst+=("$a"); fi
  done
  local dir
  dir=$(mktemp -d "$logs/copies.XXXXXX")
  "${ref[@]}" -log_view -log_view_gpu_time >"$dir/ref.log" 2>&1 || { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  "${tst[@]}" -log_view -log_view_gpu_time >"$dir/test.log" 2>&1 || { echo "test run failed"; cat "$dir/test.log"; return 1; }
  read -r rc rg ri <<<"$(copies "$dir/ref.log")"; read -r tc tg ti <<<"$(copies "$dir/test.log")"
  [ -n "$rc" ] && [ -n "$tc" ] && [ "${ri:-0}" -gt 0 ] && [ "${ti:-0}" -gt 0 ] || { echo "no KSPSolve line with copy counts, or no iterations"; return 1; }
  echo "KSPSolve copies CpuToGpu/GpuToCpu in linear iterations: reference $rc/$rg in $ri, test $tc/$tg in $ti (tolerance $tol%, extra uploads $extra)"
  if [ "$tol" = 0 ]; then
    [ "$tc" -le $((rc + extra)) ] && [ "$tg" -le "$rg" ]
  else
    # each direction: no more per iteration, or no more in all (the set-up's few copies, divided by
    # fewer iterations than the reference's, would otherwise count as more per iteration)
    awk -v a="$tc" -v b="$rc" -v c="$tg" -v d="$rg" -v ti="$ti" -v ri="$ri" -v t="$tol" 'BEGIN { f = 1 + t / 100; exit !((a / ti <= f * b / ri || a <= b) && (c / ti <= f * d / ri || c <= d)) }'
  fi
}
# a failed program's long output: its error message's first lines (the cause, past -help's or -info's
# lines, or the options a PETSc error ends with), then its last ones (log [how many, default 8])
failure_lines() {
  grep -m 12 'PETSC ERROR' "$1"
  echo "..."
  tail -"${2:-8}" "$1"
}
# -help lists the format's options: option -- command... (the command's output must name the option)
lists_option() {
  local opt=$1; shift; shift
  "$@" -help >"$logs/help.$$.log" 2>&1 || { echo "the program failed"; failure_lines "$logs/help.$$.log"; return 1; }
  grep -q -- "$opt" "$logs/help.$$.log" || { echo "$opt not listed by: $*"; return 1; }
}
# the factor package -ksp_view reports (PCFactor's "package used to perform factorization"), and a
# line -info must print (none: "")
factor_package() { # expected-package info-pattern program args...
  local want=$1 info=$2; shift 2
  local log="$logs/factor.$$.log"
  "$@" -ksp_view -info :mat >"$log" 2>&1 || { echo "the program failed"; failure_lines "$log"; return 1; }
  grep "package used to perform factorization" "$log" | sort -u
  grep -q "package used to perform factorization: $want\$" "$log" || { echo "expected the $want package"; return 1; }
  [ -z "$info" ] || grep -m1 -- "$info" "$log" || { echo "no -info line matching: $info"; return 1; }
}
export -f iters same_iterations copies no_more_copies failure_lines lists_option factor_package

# the call graph keeps to the floors of docs/design.md (no PETSc, no GPU, no build needed)
run "layers: no circle and no upward call among src/'s units" python3 scripts/check-layers.py
run "layers: a circle is caught" tests/layers-fixture.sh "$logs/layers-fixture"
# a format is its directory under src/mat/impls and its line in formats.c, from which the scripts' type lists come
run "formats: the registered formats (scripts/formats.sh) are the format directories of src/mat/impls" bash -c \
  'reg=$(scripts/formats.sh | tr " " "\n" | sort); dirs=$(ls src/mat/impls | grep -vx "spmvlayer\|spmvfactor" | sort); [ "$reg" = "$dirs" ] || { echo "registered: $reg"; echo "directories: $dirs"; exit 1; }' 
# formatting: checked with the clang-format major version the sources were formatted with
if command -v clang-format >/dev/null 2>&1 && clang-format --version | grep -q 'version 14\.'; then
  run "style: sources formatted by .clang-format (scripts/format.sh)" scripts/format.sh --check
else skip "style: clang-format 14 not found (the sources were formatted with it)"; fi

# the library's CUDA code: machine code for each architecture it was built for, PTX of the newest
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)}
if [ -n "$cuobjdump" ] && [ "${PETSCSPMV_VARIANT:-real}" = real ] && grep -E '^CUDAC *= *[^ ]' "$PETSC_DIR/lib/petsc/conf/petscvariables" >/dev/null 2>&1; then
  run "build: machine code for each CUDA architecture and PTX of the newest (cuobjdump)" env CUOBJDUMP="$cuobjdump" scripts/check-cuda-arch.sh
else skip "build: no cuobjdump (the CUDA toolkit's, or PyPI's nvidia-cuda-cuobjdump: CUOBJDUMP=...), or a build without CUDA"; fi

for t in $types; do
  seqt=seqaij$t
  # no silent host fallback on a GPU machine; without one, the format's reference kernel (AIJ's product is the default there)
  gpuopt=(-mat_${t}_backend host)
  [ $gpu = 1 ] && gpuopt=(-mat_${t}_backend cuda)
  run "$t: layout + products, shared matrices and edge cases, 1 rank" $bin/test_matrices -type $t -dir "$mats" "${gpuopt[@]}"
  run "$t: layout + products, shared matrices and edge cases, 2 ranks" $np2 $bin/test_matrices -type $t -dir "$mats" "${gpuopt[@]}"
  # every matrix's first parameter set again with its columns renumbered by frequency (layout checks map them back)
  run "$t: columns renumbered by frequency, 1 rank" $bin/test_matrices -type $t -params 0 -dir "$mats" -mat_${t}_column_order frequency "${gpuopt[@]}"
  run "$t: columns renumbered by frequency, 2 ranks" $np2 $bin/test_matrices -type $t -params 0 -dir "$mats" -mat_${t}_column_order frequency "${gpuopt[@]}"
  run "$t: columns in RCM order, 1 rank" $bin/test_matrices -type $t -params 0 -dir "$mats" -mat_${t}_column_order rcm "${gpuopt[@]}"
  run "$t: column orders of a 64^3 grid numbered randomly, by parity classes and lexicographically (auto: RCM where 16-bit column offsets need it), and of several components (rcm), 1 rank" $bin/test_order -type $t "${gpuopt[@]}"
  run "$t: column orders of a 64^3 grid numbered randomly, by parity classes and lexicographically (auto: RCM where 16-bit column offsets need it), and of several components (rcm), 2 ranks (diagonal blocks)" $np2 $bin/test_order -type $t "${gpuopt[@]}"
  run "$t: value-changing operations, 1 rank" $bin/test_ops -type $t "${gpuopt[@]}"
  run "$t: value-changing operations, 2 ranks" $np2 $bin/test_ops -type $t "${gpuopt[@]}"
  run "$t: value-changing operations, host reference kernel forced" $bin/test_ops -type $t -mat_${t}_backend host
  if [ $gpu = 1 ] && [ $t = brc ]; then # the layer's, for every type: the graph of a product's aijcusparse result made on the device
    run "$t: value-changing operations, 1 rank, a product's aijcusparse result's graph on the device" bash -c 'out=$("$@" -info :mat 2>&1) || { echo "$out" | tail -30; exit 1; }; echo "$out" | grep -q "<mat:seqaijcusparse> MatSpmvCreateGraph(): MatCreateGraph() on the device"' _ \
      $bin/test_ops -type $t "${gpuopt[@]}"
  fi
  run "$t: ILU(k) and ICC(k) by MATSOLVERSPMV, solves and transpose solves match PETSc's (shared and generated matrices, new values, refusals)" $bin/test_factor -type $t -dir "$mats" "${gpuopt[@]}"
  [ $gpu = 1 ] && run "$t: ILU(k) and ICC(k) by MATSOLVERSPMV with CUDA vectors" $bin/test_factor -type $t -dir "$mats" -vec_type cuda "${gpuopt[@]}"
  if [ $gpu = 1 ]; then
    for num in host cusparse; do # cuSPARSE's takes ILU(0), the kernel the others (-info says so)
      run "$t: ILU(k) and ICC(k) by MATSOLVERSPMV with CUDA vectors, numeric phase by -mat_spmvfactor_numeric $num" $bin/test_factor -type $t -dir "$mats" -vec_type cuda -mat_spmvfactor_numeric $num "${gpuopt[@]}"
    done
  fi
  [ $gpu = 1 ] && run "$t: ILU(k) and ICC(k) by MATSOLVERSPMV with CUDA vectors, units of 3 rows (short last units)" $bin/test_factor -type $t -dir "$mats" -vec_type cuda -chain 100001 -mat_spmvfactor_trsv_unit 3 "${gpuopt[@]}"
  # -malloc_debug: the tests check that refused layouts (ellr's padding limit) leak nothing
  run "$t: bad input, 1 rank" $bin/test_errors -type $t -gpu $gpu -malloc_debug "${gpuopt[@]}"
  run "$t: bad input, 2 ranks" $np2 $bin/test_errors -type $t -gpu $gpu -malloc_debug "${gpuopt[@]}"
  run "$t: -mat_type $t gives $seqt and shows its options" bash -c "$bin/ksp_ex2 -dll_append $lib -mat_type $t -mat_view ::ascii_info -help | grep -q -- '-mat_${t}_backend' && $bin/ksp_ex2 -dll_append $lib -mat_type $t -mat_view ::ascii_info | grep -q 'type: $seqt'"
  if [ $gpu = 0 ]; then
    run "$t: without a GPU the products are AIJ's unless the backend is asked for" bash -c "$bin/ksp_ex2 -dll_append $lib -mat_type $t -mat_view ::ascii_info | grep -q \"products are AIJ's\" && $bin/ksp_ex2 -dll_append $lib -mat_type $t -mat_${t}_backend host -mat_view ::ascii_info | grep -q 'backend host reference'"
  fi
  # what PETSc builds from our matrices: every product type with every kind of second operand
  other=ellr; [ $t = ellr ] && other=brc
  run "$t: matrix-matrix products (x $other, aijcusparse, aij, MAIJ, dense; after each change of values), 1 rank" $bin/test_compose -type $t -other $other -gpu $gpu "${gpuopt[@]}" -mat_${other}_backend "${gpuopt[1]}"
  run "$t: matrix-matrix products (x $other, aijcusparse, aij, MAIJ, dense; after each change of values), 2 ranks" $np2 $bin/test_compose -type $t -other $other -gpu $gpu "${gpuopt[@]}" -mat_${other}_backend "${gpuopt[1]}"
  if [ $gpu = 1 ] && [ $t = brc ]; then # the layer's, for every type: a parallel PtAP's off-process inner product on the host, as from a million rows a process
    run "$t: matrix-matrix products, 2 ranks, PtAP's off-process product on the host (-petscspmv_ptap_host_min_rows 0)" bash -c 'out=$("$@" -info :mat 2>&1) || { echo "$out" | tail -30; exit 1; }; echo "$out" | grep -q "its off-process product on the host"' _ \
      $np2 $bin/test_compose -type $t -other $other -gpu $gpu "${gpuopt[@]}" -mat_${other}_backend "${gpuopt[1]}" -petscspmv_ptap_host_min_rows 0
  fi
  # preconditioners that compose our matrices, with PETSc's default options first, next to the
  # base type (aijcusparse with a GPU): GAMG's Galerkin products and smoothed prolongators, PCMG's
  # Galerkin operators through a MAIJ interpolation, ICC, ASM with ILU sub-solves
  base=aij vbase=(); [ $gpu = 1 ] && base=aijcusparse vbase=(-vec_type cuda)
  # (KSP ex56 on 2 processes puts every row on the first: MPI matrices with an empty process)
  ex56="$bin/ksp_ex56 -ne 8 -ksp_type cg -pc_type gamg -ksp_converged_reason"
  for np in 1 2; do
    mpi="$PETSCSPMV_MPIEXEC_N $np"
    for gamg in "" "-pc_gamg_agg_nsmooths 0" "-use_mat_nearnullspace"; do
      run "$t: KSP ex56 CG + GAMG ${gamg:-(defaults)}, $np rank(s), iterations as $base" env ITER_TOL=2 bash -c 'same_iterations "$@"' _ ksp_ex56 \
        $mpi $ex56 $gamg -mat_type $base "${vbase[@]}" -- $mpi $ex56 $gamg -dll_append $lib -mat_type $t "${vbase[@]}" "${gpuopt[@]}"
    done
    # a scalar operator: GAMG's graph is ours (made on the device with a GPU); MIS sees the same pattern
    ex45="$bin/ksp_ex45 -da_grid_x 12 -da_grid_y 12 -da_grid_z 12 -ksp_type cg -pc_type gamg -ksp_converged_reason"
    for gamg in "" "-pc_gamg_threshold 0.05" "-pc_gamg_aggressive_coarsening 0" "-pc_gamg_agg_nsmooths 0"; do
      # seconds each: a set-up that stops (as spmv's did with 2 processes on one GPU, docs/limits.md) fails in 5 minutes
      case_limit=300 run "$t: KSP ex45 CG + GAMG ${gamg:-(defaults)}, $np rank(s), iterations as $base" bash -c 'same_iterations "$@"' _ ksp_ex45 \
        $mpi $ex45 $gamg -dm_mat_type $base ${vbase[@]/-vec_type/-dm_vec_type} -- $mpi $ex45 $gamg -dll_append $lib -dm_mat_type $t ${vbase[@]/-vec_type/-dm_vec_type} "${gpuopt[@]}"
    done
    mg="$bin/ex19 -da_grid_x 17 -da_grid_y 17 -da_refine 2 -pc_type mg -pc_mg_galerkin pmat -snes_converged_reason -ksp_converged_reason"
    run "$t: SNES ex19 PCMG Galerkin on a DMDA (MAIJ interpolation), $np rank(s), iterations as $base" env ITER_TOL=2 bash -c 'same_iterations "$@"' _ ex19 \
      $mpi $mg -dm_mat_type $base ${vbase[@]/-vec_type/-dm_vec_type} -- $mpi $mg -dll_append $lib -dm_mat_type $t ${vbase[@]/-vec_type/-dm_vec_type} "${gpuopt[@]}"
  done
  run "$t: KSP ex2 CG + ICC(0), same iterations as $base" same_iterations ksp_ex2 \
    $bin/ksp_ex2 -m 40 -n 40 -ksp_type cg -pc_type icc -ksp_converged_reason -mat_type $base "${vbase[@]}" -- $bin/ksp_ex2 -m 40 -n 40 -ksp_type cg -pc_type icc -ksp_converged_reason -dll_append $lib -mat_type $t "${vbase[@]}" "${gpuopt[@]}"
  ex19="$bin/ex19 -da_grid_x 24 -da_grid_y 24 -snes_converged_reason -ksp_converged_reason"
  run "$t: SNES ex19 ASM + ILU sub-solves, 2 ranks, same iterations as $base" same_iterations ex19 \
    $np2 $ex19 -pc_type asm -sub_pc_type ilu -dm_mat_type $base ${vbase[@]/-vec_type/-dm_vec_type} -- $np2 $ex19 -pc_type asm -sub_pc_type ilu -dll_append $lib -dm_mat_type $t ${vbase[@]/-vec_type/-dm_vec_type} "${gpuopt[@]}"
  for np in 1 2; do # DMCreateMatrix() never calls MatSetFromOptions(): the options are read at the first product
    run "$t: -help lists -mat_${t}_backend, SNES ex19 -dm_mat_type $t, $np rank(s)" bash -c 'lists_option "$@"' _ -mat_${t}_backend -- \
      $PETSCSPMV_MPIEXEC_N $np $bin/ex19 -da_grid_x 8 -da_grid_y 8 -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
  done
  run "$t: -help lists -mat_${t}_backend, KSP ex2 -mat_type $t (MatSetFromOptions)" bash -c 'lists_option "$@"' _ -mat_${t}_backend -- \
    $bin/ksp_ex2 -m 8 -n 8 -dll_append $lib -mat_type $t "${gpuopt[@]}"
  for np in 1 2; do
    mpi="$PETSCSPMV_MPIEXEC_N $np"
    for pc in ilu jacobi; do
      pcopt="-pc_type $pc"
      [ $pc = ilu ] && [ $np = 2 ] && pcopt="-pc_type bjacobi -sub_pc_type ilu"
      run "$t: SNES ex19 $pc, $np rank(s), same iterations as aij" same_iterations ex19 \
        $mpi $ex19 $pcopt -dm_mat_type aij -- $mpi $ex19 $pcopt -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
    done
    spmvilu="-pc_type ilu -pc_factor_mat_solver_type spmv"
    [ $np = 2 ] && spmvilu="-pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type spmv"
    run "$t: SNES ex19 ILU(0) by MATSOLVERSPMV, $np rank(s), same iterations as aij with PETSc's ILU(0)" same_iterations ex19 \
      $mpi $ex19 ${spmvilu//spmv/petsc} -dm_mat_type aij -- $mpi $ex19 $spmvilu -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
    lev="-pc_factor_levels 2"
    [ $np = 2 ] && lev="-sub_pc_factor_levels 2"
    run "$t: SNES ex19 ILU(2) by MATSOLVERSPMV, $np rank(s), same iterations as aij with PETSc's ILU(2)" same_iterations ex19 \
      $mpi $ex19 ${spmvilu//spmv/petsc} $lev -dm_mat_type aij -- $mpi $ex19 $spmvilu $lev -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
    [ $np = 2 ] && run "$t: SNES ex19 ASM + ILU(1) by MATSOLVERSPMV, 2 ranks, same iterations as aij with PETSc's ILU(1)" same_iterations ex19 \
      $mpi $ex19 -pc_type asm -sub_pc_type ilu -sub_pc_factor_levels 1 -sub_pc_factor_mat_solver_type petsc -dm_mat_type aij -- $mpi $ex19 -pc_type asm -sub_pc_type ilu -sub_pc_factor_levels 1 -sub_pc_factor_mat_solver_type spmv -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
    for trsv in jacobi isai; do
      jac="-mat_spmvfactor_trsv $trsv -mat_spmvfactor_trsv_sweeps 2"
      [ $np = 2 ] && jac="-sub_mat_spmvfactor_trsv $trsv -sub_mat_spmvfactor_trsv_sweeps 2"
      run "$t: SNES ex19 ILU(0) by MATSOLVERSPMV with approximate solves ($trsv), $np rank(s), same iterations as on aij (host reference)" same_iterations ex19 \
        $mpi $ex19 $spmvilu $jac -dll_append $lib -dm_mat_type aij -- $mpi $ex19 $spmvilu $jac -dll_append $lib -dm_mat_type $t "${gpuopt[@]}"
    done
    spmvicc="-ksp_type cg -pc_type icc -pc_factor_mat_solver_type spmv"
    [ $np = 2 ] && spmvicc="-ksp_type cg -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type spmv"
    run "$t: KSP ex2 CG + ICC(0) by MATSOLVERSPMV, $np rank(s), same iterations as aij with PETSc's ICC(0)" same_iterations ksp_ex2 \
      $mpi $bin/ksp_ex2 -m 40 -n 40 -ksp_converged_reason ${spmvicc//spmv/petsc} -mat_type aij -- $mpi $bin/ksp_ex2 -m 40 -n 40 -ksp_converged_reason $spmvicc -dll_append $lib -mat_type $t "${gpuopt[@]}"
    if [ $np = 1 ]; then # wide rows of 3x3 blocks: the unit rule takes the block size
      ex56icc="$bin/ksp_ex56 -ne 8 -ksp_type cg -pc_type icc -ksp_converged_reason"
      run "$t: KSP ex56 CG + ICC(0) by MATSOLVERSPMV (81 nonzeros per row): units of its 3-row blocks" factor_package spmv "units of 3 rows" \
        $ex56icc -pc_factor_mat_solver_type spmv -dll_append $lib -mat_type $t "${gpuopt[@]}"
      run "$t: KSP ex56 CG + ICC(0) by MATSOLVERSPMV, same iterations as aij with PETSc's ICC(0)" same_iterations ksp_ex56 \
        $ex56icc -pc_factor_mat_solver_type petsc -mat_type aij -- $ex56icc -pc_factor_mat_solver_type spmv -dll_append $lib -mat_type $t "${gpuopt[@]}"
    fi
    run "$t: KSP ex2, $np rank(s), same iterations as aij" same_iterations ksp_ex2 \
      $mpi $bin/ksp_ex2 -m 40 -n 40 -ksp_converged_reason -mat_type aij -- $mpi $bin/ksp_ex2 -m 40 -n 40 -ksp_converged_reason -dll_append $lib -mat_type $t "${gpuopt[@]}"
  done
  if [ $t = brc ]; then # the layer's, for every type: PCMG's interpolations on a DMDA of our type are ours too
    ex29="$bin/ksp_ex29 -da_grid_x 33 -da_grid_y 33 -ksp_type cg -pc_type mg -pc_mg_levels 4 -ksp_converged_reason"
    ref=aij vec=; [ $gpu = 1 ] && ref=aijcusparse vec=-dm_vec_type
    for np in 1 2; do
      mpi=; [ $np = 2 ] && mpi=$np2
      run "$t: KSP ex29 PCMG on a DMDA, $np rank(s): interpolations of the DM's type (-info), same iterations as $ref" same_iterations ksp_ex29 \
        $mpi $ex29 -dm_mat_type $ref ${vec:+$vec cuda} -- \
        bash -c 'out=$("$@" -info :mat 2>&1); rc=$?; echo "$out"; [ $rc = 0 ] && echo "$out" | grep -q "DMDA interpolation .* made '$t'"' _ \
        $mpi $ex29 -dll_append $lib -dm_mat_type $t ${vec:+$vec cuda} -petscspmv_layout_min_products 0
      [ $gpu = 1 ] && run "$t: KSP ex29 PCMG on a DMDA, $np rank(s), PETSc's defaults: KSPSolve copies at most aijcusparse's" no_more_copies 0 0 \
        $mpi $ex29 -dm_mat_type aijcusparse -dm_vec_type cuda -- $mpi $ex29 -dll_append $lib -dm_mat_type $t -dm_vec_type cuda
      [ $gpu = 1 ] && run "$t: KSP ex29 PCMG on a DMDA, $np rank(s), every level with a layout: KSPSolve copies at most aijcusparse's (and each layout's one-time uploads)" no_more_copies 0 16 \
        $mpi $ex29 -dm_mat_type aijcusparse -dm_vec_type cuda -- $mpi $ex29 -dll_append $lib -dm_mat_type $t -dm_vec_type cuda -petscspmv_layout_min_products 0
    done
  fi
  if [ $gpu = 1 ] && [ $t = brc ]; then # the factor package's, for every type: a Jacobian assembled on the host and factored at every stage
    adr="$bin/ts_adr_ex5 -da_grid_x 64 -da_grid_y 64 -ts_max_steps 10 -ksp_converged_reason -dm_vec_type cuda"
    for num in auto device cusparse host; do
      run "$t: TS ADR ex5 with PETSc's defaults (ILU(0) refactored 82 times), numeric phase $num: same iterations as aijcusparse's" same_iterations ts_adr_ex5 \
        $adr -dm_mat_type aijcusparse -- $adr -dll_append $lib -dm_mat_type $t -mat_spmvfactor_numeric $num
    done
  fi
  if [ $gpu = 1 ]; then
    run "$t: SNES ex19 with CUDA vectors, same iterations as aij" same_iterations ex19 \
      $ex19 -pc_type jacobi -dm_mat_type aij -- $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: SNES ex19 with CUDA vectors, 2 ranks" same_iterations ex19 \
      $np2 $ex19 -pc_type jacobi -dm_mat_type aij -- $np2 $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    if [ $t = brc ]; then # the layer's, for every type: MPI products' ghost exchange beside the diagonal block's product
      # taken where each process has a GPU of its own; -petscspmv_ghost_stream_shared takes it on a shared one too
      run "$t: SNES ex19 with CUDA vectors, 2 ranks, ghost exchange on its own stream (-info): same iterations as through PETSc's scatter (-petscspmv_ghost_stream 0)" same_iterations ex19 \
        $np2 $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda -petscspmv_ghost_stream 0 -- \
        bash -c 'out=$("$@" -info :mat 2>&1); rc=$?; echo "$out"; [ $rc = 0 ] && echo "$out" | grep -q "ghost exchange on a stream of its own"' _ \
        $np2 $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda -petscspmv_ghost_stream_shared "${gpuopt[@]}"
      run "$t: 2 ranks, the ghost exchange on its own stream only where no two processes share a GPU (-info)" \
        bash -c 'out=$("$@" -info :mat 2>&1) || { echo "$out" | tail -30; exit 1; }; n=$(nvidia-smi -L | grep -c GPU); if [ "${CUDA_VISIBLE_DEVICES:-x}" != x ]; then n=$(echo "$CUDA_VISIBLE_DEVICES" | tr , "\n" | grep -c .); fi
          if [ "$n" -ge 2 ]; then echo "$out" | grep -q "ghost exchange on a stream of its own"; else echo "$out" | grep -q "processes share a GPU"; fi' _ \
        $np2 $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
      run "$t: value-changing operations, 2 ranks, ghost exchange on its own stream (-petscspmv_ghost_stream_shared)" $np2 $bin/test_ops -type $t "${gpuopt[@]}" -petscspmv_ghost_stream_shared
      # the layer's, for every type: on the GPU a matrix takes aijcusparse's products until it has taken
      # -petscspmv_layout_min_products (100) of them at its nonzero pattern, then its layout is built
      for np in 1 2; do
        mpi=; [ $np = 2 ] && mpi=$np2
        few="-pc_type jacobi -snes_max_it 1 -ksp_max_it 30"
        run "$t: a matrix of fewer products than -petscspmv_layout_min_products, $np rank(s): aijcusparse's products, no layout (-log_view), same iterations as aijcusparse" same_iterations ex19 \
          $mpi $ex19 $few -dm_mat_type aijcusparse -dm_vec_type cuda -- \
          bash -c 'out=$("$@" -log_view 2>&1); rc=$?; echo "$out"; [ $rc = 0 ] && ! echo "$out" | grep -Eq "^Mat[A-Z]+Build +[1-9]"' _ \
          $mpi $ex19 $few -dll_append $lib -dm_mat_type $t -dm_vec_type cuda
        run "$t: a matrix of fewer products than -petscspmv_layout_min_products, $np rank(s): KSPSolve copies at most aijcusparse's" no_more_copies 0 0 \
          $mpi $ex19 $few -dm_mat_type aijcusparse -dm_vec_type cuda -- $mpi $ex19 $few -dll_append $lib -dm_mat_type $t -dm_vec_type cuda
        run "$t: $np rank(s), -petscspmv_layout_min_products 0 or -mat_${t}_backend cuda: the layout at the first product" \
          bash -c 'for o in "-petscspmv_layout_min_products 0" "-mat_'$t'_backend cuda"; do out=$("$@" $o -log_view 2>&1) || { echo "$out" | tail -30; exit 1; }; echo "$out" | grep -Eq "^Mat[A-Z]+Build +[1-9]" || { echo "no layout built with $o"; exit 1; }; done' _ \
          $mpi $ex19 $few -dll_append $lib -dm_mat_type $t -dm_vec_type cuda
        run "$t: a matrix of many products, $np rank(s): its layout after 100 (-info), same iterations as aijcusparse" same_iterations ex19 \
          $mpi $ex19 -pc_type jacobi -dm_mat_type aijcusparse -dm_vec_type cuda -- \
          bash -c 'out=$("$@" -info :mat -log_view 2>&1); rc=$?; echo "$out"; [ $rc = 0 ] && echo "$out" | grep -Eq "100 products of A through aijcusparse.s at this nonzero pattern" && echo "$out" | grep -Eq "^Mat[A-Z]+Build +[1-9]"' _ \
          $mpi $ex19 -pc_type jacobi -dll_append $lib -dm_mat_type $t -dm_vec_type cuda
      done
    fi
    # GPU-resident: inside KSPSolve no more host<->device copies than aijcusparse makes; ARGCSR
    # plans its row groups on the host from the row lengths and uploads that O(rows) plan once, at
    # the layout build in the first product (docs/formats.md)
    plan=0; [ $t = argcsr ] && plan=1
    for pc in ilu jacobi "ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 5 -ksp_pc_type jacobi -ksp_ksp_norm_type none"; do
      run "$t: SNES ex19 -pc_type ${pc%% *} with CUDA vectors, KSPSolve copies at most aijcusparse's" no_more_copies 0 $plan \
        $ex19 -pc_type $pc -dm_mat_type aijcusparse -dm_vec_type cuda -- $ex19 -pc_type $pc -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    done
    run "$t: SNES ex19 -pc_type gamg with CUDA vectors, KSPSolve copies per iteration at most aijcusparse's" no_more_copies 1 0 \
      $ex19 -pc_type gamg -dm_mat_type aijcusparse -dm_vec_type cuda -- $ex19 -pc_type gamg -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    # PCFactor's default package of our types: MATSOLVERSPMV, cuSPARSE's where it declines
    run "$t: SNES ex19 with PETSc's defaults (ILU(0)): MATSOLVERSPMV's factor" factor_package spmv "takes the ILU factorization" \
      $ex19 -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: SNES ex19 with PETSc's defaults, same iterations as aijcusparse with its defaults (cuSPARSE's ILU(0))" same_iterations ex19 \
      $ex19 -dm_mat_type aijcusparse -dm_vec_type cuda -- $ex19 -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: default ILU with -pc_factor_shift_type nonzero: handed to cuSPARSE's, -info says why" factor_package cusparse "hands the ILU factorization to cusparse: pivot shift" \
      $ex19 -pc_type ilu -pc_factor_shift_type nonzero -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: default ILU with -pc_factor_mat_ordering_type rcm: handed to cuSPARSE's" factor_package cusparse "an ordering other than natural" \
      $ex19 -pc_type ilu -pc_factor_mat_ordering_type rcm -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: -pc_factor_mat_solver_type cusparse still gives cuSPARSE's ILU" factor_package cusparse "" \
      $ex19 -pc_type ilu -pc_factor_mat_solver_type cusparse -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
    run "$t: default ICC(0) on KSP ex56 (81 nonzeros per row, units of its 3-row blocks): MATSOLVERSPMV's" factor_package spmv "units of 3 rows" \
      $bin/ksp_ex56 -ne 8 -ksp_type cg -pc_type icc -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ICC(0) on KSP ex56, same iterations as aijcusparse's (cuSPARSE's ICC(0))" env ITER_TOL=2 bash -c 'same_iterations "$@"' _ ksp_ex56 \
      $bin/ksp_ex56 -ne 8 -ksp_type cg -pc_type icc -ksp_converged_reason -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex56 -ne 8 -ksp_type cg -pc_type icc -ksp_converged_reason -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ICC(1) on KSP ex2: MATSOLVERSPMV's" factor_package spmv "takes the ICC factorization" \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_type cg -pc_type icc -pc_factor_levels 1 -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ICC(1) on KSP ex2, same iterations as aijcusparse's (cuSPARSE's ICC(1))" same_iterations ksp_ex2 \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type cg -pc_type icc -pc_factor_levels 1 -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type cg -pc_type icc -pc_factor_levels 1 -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ICC(0) on KSP ex2 (5 nonzeros per row): MATSOLVERSPMV's, same iterations as aijcusparse's" same_iterations ksp_ex2 \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type cg -pc_type icc -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type cg -pc_type icc -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ILU with -pc_factor_nonzeros_along_diagonal (no zero on the diagonal: the natural order kept): MATSOLVERSPMV's, same iterations as aijcusparse's" same_iterations ksp_ex2 \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -pc_type ilu -pc_factor_nonzeros_along_diagonal -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -pc_type ilu -pc_factor_nonzeros_along_diagonal -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ILU(1) (-pc_factor_levels 1, reused fill and ordering): MATSOLVERSPMV's, same iterations as aijcusparse's" same_iterations ksp_ex2 \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -pc_type ilu -pc_factor_levels 1 -pc_factor_reuse_fill -pc_factor_reuse_ordering -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -pc_type ilu -pc_factor_levels 1 -pc_factor_reuse_fill -pc_factor_reuse_ordering -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default block Jacobi + ILU(0) on 2 ranks: MATSOLVERSPMV's sub-factors" factor_package spmv "" \
      $np2 $bin/ksp_ex2 -m 64 -n 64 -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    run "$t: default ILU(0) under BiCG (transpose solves by a second, cuSPARSE, factorization): same iterations as aijcusparse's" same_iterations ksp_ex2 \
      $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type bicg -pc_type ilu -mat_type aijcusparse -vec_type cuda -- $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason -ksp_type bicg -pc_type ilu -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    for np in 1 2; do
      spmvilu="-pc_type ilu -pc_factor_mat_solver_type"
      [ $np = 2 ] && spmvilu="-pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type"
      run "$t: SNES ex19 ILU(0) by MATSOLVERSPMV on the GPU, $np rank(s), same iterations as aijcusparse's cuSPARSE ILU(0)" same_iterations ex19 \
        $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu cusparse -dm_mat_type aijcusparse -dm_vec_type cuda -- $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu spmv -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
      for where in host cusparse; do
        num="-mat_spmvfactor_numeric $where"
        [ $np = 2 ] && num="-sub_mat_spmvfactor_numeric $where"
        run "$t: SNES ex19 ILU(0) by MATSOLVERSPMV on the GPU, numeric phase by -mat_spmvfactor_numeric $where, $np rank(s), same iterations as aijcusparse's cuSPARSE ILU(0)" same_iterations ex19 \
          $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu cusparse -dm_mat_type aijcusparse -dm_vec_type cuda -- $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu spmv $num -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
      done
      lev="-pc_factor_levels 2"
      [ $np = 2 ] && lev="-sub_pc_factor_levels 2"
      run "$t: SNES ex19 ILU(2) by MATSOLVERSPMV on the GPU, $np rank(s), same iterations as aijcusparse's cuSPARSE ILU(2)" same_iterations ex19 \
        $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu cusparse $lev -dm_mat_type aijcusparse -dm_vec_type cuda -- $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu spmv $lev -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
      for trsv in jacobi isai; do
        jac="-mat_spmvfactor_trsv $trsv -mat_spmvfactor_trsv_sweeps 2"
        [ $np = 2 ] && jac="-sub_mat_spmvfactor_trsv $trsv -sub_mat_spmvfactor_trsv_sweeps 2"
        run "$t: SNES ex19 ILU(0) by MATSOLVERSPMV with approximate solves ($trsv) on the GPU, $np rank(s), same iterations as the host reference on aij" same_iterations ex19 \
          $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu spmv $jac -dll_append $lib -dm_mat_type aij -- $PETSCSPMV_MPIEXEC_N $np $ex19 $spmvilu spmv $jac -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
      done
    done
    for np in 1 2; do
      spmvicc="-ksp_type cg -pc_type icc -pc_factor_mat_solver_type"
      [ $np = 2 ] && spmvicc="-ksp_type cg -pc_type bjacobi -sub_pc_type icc -sub_pc_factor_mat_solver_type"
      run "$t: KSP ex2 CG + ICC(0) by MATSOLVERSPMV on the GPU, $np rank(s), same iterations as aijcusparse's cuSPARSE ICC(0)" same_iterations ksp_ex2 \
        $PETSCSPMV_MPIEXEC_N $np $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason $spmvicc cusparse -mat_type aijcusparse -vec_type cuda -- $PETSCSPMV_MPIEXEC_N $np $bin/ksp_ex2 -m 64 -n 64 -ksp_converged_reason $spmvicc spmv -dll_append $lib -mat_type $t -vec_type cuda "${gpuopt[@]}"
    done
    run "$t: SNES ex19 ILU(0), same iterations as aijcusparse (device factor)" same_iterations ex19 \
      $ex19 -pc_type ilu -dm_mat_type aijcusparse -dm_vec_type cuda -- $ex19 -pc_type ilu -dll_append $lib -dm_mat_type $t -dm_vec_type cuda "${gpuopt[@]}"
  else
    skip "$t: SNES ex19 with CUDA vectors (no GPU)"
  fi
done
# MATSOLVERSPMV on PETSc's own types: aij (host reference) and aijcusparse (GPU)
run "aij: ILU(k) and ICC(k) by MATSOLVERSPMV (host reference), solves match PETSc's" $bin/test_factor -type aij -dir "$mats"
if [ $gpu = 1 ]; then
  run "aijcusparse: ILU(k) and ICC(k) by MATSOLVERSPMV on the GPU, solves match PETSc's" $bin/test_factor -type aijcusparse -dir "$mats" -vec_type cuda
else
  skip "aijcusparse: ILU(k) and ICC(k) by MATSOLVERSPMV on the GPU (no GPU)"
fi
case " $types " in *" spmv "*)
  gpuopt=(-mat_spmv_backend host)
  [ $gpu = 1 ] && gpuopt=(-mat_spmv_backend cuda)
  run "spmv: the format chosen per operator and block, 1 rank" $bin/test_spmv "${gpuopt[@]}"
  run "spmv: the format chosen per operator and block, 2 ranks" $np2 $bin/test_spmv "${gpuopt[@]}" ;;
esac
# examples/ex1 (what a user copies): CG + ICC(0) by MATSOLVERSPMV on brc, made by -mat_type and by
# MatConvert, and on aij: the same iterations as aij with PETSc's own ICC(0), the same factorization
ex1_case() { # np matrix-type-shown solver-type-shown ex1-options...
  local np=$1 mtype=$2 stype=$3 dir ref tst tol=0 sub=
  shift 3
  [ $np -gt 1 ] && sub=sub_ # block Jacobi
  dir=$(mktemp -d "$logs/ex1.XXXXXX")
  $PETSCSPMV_MPIEXEC_N $np $bin/ex1 -n 40 -mat_type aij -${sub}pc_factor_mat_solver_type petsc >"$dir/ref.log" 2>&1 ||
    { echo "reference run failed"; cat "$dir/ref.log"; return 1; }
  $PETSCSPMV_MPIEXEC_N $np $bin/ex1 -n 40 "$@" >"$dir/test.log" 2>&1 || { echo "ex1 $* failed"; cat "$dir/test.log"; return 1; }
  cat "$dir/test.log"
  grep -q "^Matrix: $mtype," "$dir/test.log" || { echo "not a $mtype matrix"; return 1; }
  grep -q "factor solver type: $stype\$" "$dir/test.log" || { echo "the factor is not $stype's"; return 1; }
  grep -q "factor solver type: petsc\$" "$dir/ref.log" || { echo "the reference's factor is not PETSc's"; cat "$dir/ref.log"; return 1; }
  ref=$(sed -n 's/.*: CONVERGED_[A-Z_]* after \([0-9]*\) iterations.*/\1/p' "$dir/ref.log")
  tst=$(sed -n 's/.*: CONVERGED_[A-Z_]* after \([0-9]*\) iterations.*/\1/p' "$dir/test.log")
  [ -n "$ref" ] && [ -n "$tst" ] || { echo "did not converge (reference: ${ref:-no}, ex1: ${tst:-no})"; return 1; }
  [ "${PETSCSPMV_VARIANT:-real}" = single ] && tol=$((ref / 50 + 1)) # products summed in another order
  [ $((tst - ref)) -le $tol ] && [ $((ref - tst)) -le $tol ] || { echo "iterations $tst, aij with PETSc's ICC(0) $ref"; return 1; }
  echo "iterations $tst, as aij with PETSc's ICC(0)"
}
export -f ex1_case
export bin
run "examples: ex1 with brc (-mat_type brc), CG + ICC(0) by MATSOLVERSPMV, same iterations as aij with PETSc's ICC(0)" ex1_case 1 seqaijbrc spmv -mat_type brc
run "examples: ex1 with brc (-convert: MatConvert in place), same iterations as aij with PETSc's ICC(0)" ex1_case 1 seqaijbrc spmv -convert
run "examples: ex1 with aij, ICC(0) by MATSOLVERSPMV, same iterations as PETSc's ICC(0)" ex1_case 1 seqaij spmv -mat_type aij
run "examples: ex1 with brc, 2 ranks (block Jacobi + ICC(0) by MATSOLVERSPMV), same iterations as aij with PETSc's" ex1_case 2 mpiaijbrc spmv -mat_type brc
# the GAMG set-up report of bench/solves.sh --flame, on PETSc's nested timings of a small solve
run "bench: gamg-setup.py splits GAMG's set-up of KSP ex45 16^3 (aij, brc) into parts that add up to PCSetUp" bash -c '
  d=$(mktemp -d "$1/gamg-setup.XXXXXX"); shift
  for t in aij brc; do "$@" -dm_mat_type $t -log_view ascii,ascii:$d/ex45-$t-np1.log.flame:ascii_flamegraph >/dev/null || exit 1; done
  python3 bench/gamg-setup.py --check "$d"' _ "$logs" $bin/ksp_ex45 -da_grid_x 16 -da_grid_y 16 -da_grid_z 16 -ksp_type cg -pc_type gamg -dll_append $lib
# petsc4py and SLEPc built against this PETSc (scripts/setup-python.sh: make python, make slepc, make demo)
pyenv=$(petscspmv_python_venv)
pybackend=host; [ $gpu = 1 ] && pybackend=cuda # the formats' kernels, not AIJ's products (no GPU)
pyopts=(-mat_brc_backend $pybackend -mat_spmv_backend $pybackend -mat_ellr_backend $pybackend)
# petsc4py must load this PETSc's library, not another build's of the same version
same_petsc() {
  local so
  so=$(find "$1" -name 'PETSc*.so' -path '*petsc4py*' | head -1)
  [ -n "$so" ] || { echo "no petsc4py extension in $1"; return 1; }
  local got
  got=$(ldd "$so" | awk '/libpetsc\.so/ { print $3; exit }')
  echo "petsc4py loads $got"
  # compared as resolved directories: the library may be reached through a link (the GPU bundle)
  [ -n "$got" ] && [ "$(readlink -f "$(dirname "$got")")" = "$(readlink -f "$PETSC_DIR/${PETSC_ARCH:-}/lib")" ] ||
    { echo "petsc4py in $1 does not load the PETSc at $PETSC_DIR (rebuild it: rm -rf $1; make python)"; return 1; }
}
export -f same_petsc
if "$pyenv/bin/python" -c 'import petsc4py' >/dev/null 2>&1; then
  run "python: petsc4py loads this PETSc's library" same_petsc "$pyenv"
  run "python: petsc4py drives brc, spmv, ellr: products as AIJ's, CG + ICC(0) by MATSOLVERSPMV as AIJ with PETSc's, 1 rank" "$pyenv/bin/python" tests/test_petsc4py.py "$lib" "${pyopts[@]}"
  run "python: petsc4py drives brc, spmv, ellr: products, block Jacobi + ICC(0) by MATSOLVERSPMV, 2 ranks" $np2 "$pyenv/bin/python" tests/test_petsc4py.py "$lib" "${pyopts[@]}"
else skip "python: petsc4py not set up for this PETSc (make python)"; fi
if "$pyenv/bin/python" -c 'import slepc4py' >/dev/null 2>&1; then
  run "python: SLEPc Krylov-Schur on brc, spmv, ellr gives AIJ's eigenvalues (largest; smallest by shift-and-invert with ICC(0) by MATSOLVERSPMV), 1 rank" "$pyenv/bin/python" tests/test_slepc4py.py "$lib" "${pyopts[@]}"
  run "python: SLEPc Krylov-Schur on brc, spmv, ellr gives AIJ's eigenvalues, 2 ranks" $np2 "$pyenv/bin/python" tests/test_slepc4py.py "$lib" "${pyopts[@]}"
else skip "python: SLEPc not set up for this PETSc (make slepc)"; fi
# make install's pkg-config file builds a program against the installed copy alone (a tree without
# make, PETSc's compiler or its PETSc.pc, such as the GPU bundle, cannot install: there the same
# program as built in the tree by make)
installed() {
  local prefix pcpath cc
  prefix=$(mktemp -d "$logs/install.XXXXXX")
  make --no-print-directory -C "$root" install PREFIX="$prefix" || return 1
  pcpath=$prefix/lib/pkgconfig:$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig
  cat "$prefix/lib/pkgconfig/petscspmv.pc"
  cc=$(PKG_CONFIG_PATH=$pcpath pkg-config --variable=ccompiler PETSc) || return 1
  # shellcheck disable=SC2046
  $cc -o "$prefix/prog" "$root/tests/test_installed.c" $(PKG_CONFIG_PATH=$pcpath pkg-config --cflags --libs petscspmv) \
    -Wl,-rpath,"$(PKG_CONFIG_PATH=$pcpath pkg-config --variable=libdir PETSc)" || return 1
  ldd "$prefix/prog" | grep -F "$prefix/lib/libpetscspmv.so" || { echo "not linked to the installed library"; return 1; }
  "$prefix/prog" && $np2 "$prefix/prog"
}
export -f installed
export root logs np2
if command -v make >/dev/null && command -v pkg-config >/dev/null && [ -f "$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig/PETSc.pc" ] &&
  command -v "$(PKG_CONFIG_PATH=$PETSC_DIR/${PETSC_ARCH:-}/lib/pkgconfig pkg-config --variable=ccompiler PETSc)" >/dev/null; then
  run "make install: tests/test_installed.c built with pkg-config --cflags --libs petscspmv against the installed copy runs every type, 1 and 2 ranks" installed
else
  run "make install not tried (no make, pkg-config, PETSc.pc or PETSc's compiler here): tests/test_installed.c built in the tree runs every type, 1 and 2 ranks" \
    bash -c "$bin/test_installed && $np2 $bin/test_installed"
fi
echo "($skip skipped)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
