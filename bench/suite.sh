#!/usr/bin/env bash
# The benchmark suite: every format on the six generated matrices, Graph500's R-MAT graph and three
# operators of PETSc tutorials (KSP ex56 Q1 elasticity, SNES ex12 Q2 Poisson, SNES ex62 Q2-Q1 Stokes),
# one CSV, a speedup table and plot.
#
#   bench/suite.sh                     everything: matrices (if missing), bench, report
#   bench/suite.sh matrices            only write the tutorial operators (skipped where present)
#   bench/suite.sh bench [NAME...]     only benchmark (all matrices, or the NAMEs) and append to the CSV
#   bench/suite.sh report              only the report of the CSV
#
# NAMEs: laplace2d ex19 laplace3d27 elastic3d powerlaw circuit rmat ex56 ex12 ex62
# Environment (defaults):
#   SUITE_DIR=bench/suite-matrices      the tutorial operators, PETSc binary (gitignored)
#   SUITE_OUT=results/suite ($OUT/suite when OUT is set)  suite.csv, one spmvbench log per matrix, the report's PNG (gitignored)
#   SUITE_TYPES=aijcusparse,brc,cmrs,argcsr,ipcsr,ellr,spmv
#   SUITE_TIMEOUT=300                   seconds per matrix (all its types)
#   SUITE_REPS=100                      timed products per type
#   EX56_NE=63 EX12_N=40 EX62_N=20 RMAT_SCALE=21   sizes (61.7M, 30.1M, 36.7M nonzeros; rmat 21: 63.5M)
#   SUITE_NP=8                          processes of the runs that write the tutorial operators: their
#                                       numbering is a parallel application's (each process's range)
#   EX56_OPTS, EX12_OPTS, EX62_OPTS     extra options for the generating runs
#   SUITE_BENCH_OPTS                    extra spmvbench options, e.g. -peak_gbs 3350
#   SUITE_BASE=aijcusparse              the report's reference type (aij for a host-only test run)
# Later lines of a matrix replace earlier ones in the report, so a matrix can be benchmarked again.
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh
bin=build/bin
[ "${PETSCSPMV_VARIANT:-real}" = real ] || bin=build/$PETSCSPMV_VARIANT/bin
dir=${SUITE_DIR:-bench/suite-matrices}
out=${SUITE_OUT:-${OUT:+$OUT/suite}}
out=${out:-results/suite}
types=${SUITE_TYPES:-aijcusparse,brc,cmrs,argcsr,ipcsr,ellr,spmv}
tmo=${SUITE_TIMEOUT:-300}
reps=${SUITE_REPS:-100}
EX56_NE=${EX56_NE:-63} EX12_N=${EX12_N:-40} EX62_N=${EX62_N:-20} RMAT_SCALE=${RMAT_SCALE:-21}
np=${SUITE_NP:-8}
gen="$PETSCSPMV_MPIEXEC_N $np"
generated="laplace2d ex19 laplace3d27 elastic3d powerlaw circuit rmat"
tutorials="ex56 ex12 ex62"

# Each program runs one linear solve of one iteration, unpreconditioned, only so that KSPSolve writes
# its operator (-ksp_view_mat); -snes_max_it 1 keeps the SNES examples to a single Jacobian.
gen_ex56() {
  $gen $bin/ksp_ex56 -ne $EX56_NE -ksp_type cg -pc_type none -ksp_max_it 1 -ksp_view_mat binary:"$1" ${EX56_OPTS:-}
}
gen_ex12() { # Q2 Poisson on an N^3 hexahedral box, Dirichlet boundary
  $gen $bin/snes_ex12 -dm_plex_dim 3 -dm_plex_simplex 0 -dm_plex_box_faces $EX12_N,$EX12_N,$EX12_N -petscspace_degree 2 \
    -bc_type dirichlet -quiet -snes_max_it 1 -ksp_type cg -pc_type none -ksp_max_it 1 -ksp_view_mat binary:"$1" ${EX12_OPTS:-}
}
gen_ex62() { # Q2-Q1 Stokes on an N^3 hexahedral box; the Jacobian alone is the operator (-petscds_jac_pre 0).
  # 2 Gauss points per edge instead of 3: the same nonzero pattern (checked), 3x faster assembly (about
  # 20 ms per cell with 3 points on one core: 140 s at N = 19); EX62_OPTS=-vel_petscfe_default_quadrature_order 2 restores it
  $gen $bin/snes_ex62 -sol quadratic -dm_plex_dim 3 -dm_plex_simplex 0 -dm_plex_box_faces $EX62_N,$EX62_N,$EX62_N \
    -vel_petscspace_degree 2 -pres_petscspace_degree 1 -petscds_jac_pre 0 -vel_petscfe_default_quadrature_order 1 \
    -snes_max_it 1 -ksp_type gmres -pc_type none -ksp_max_it 1 -ksp_view_mat binary:"$1" ${EX62_OPTS:-}
}
file_of() { # the operator's file name carries its size, so that another size is written anew
  case $1 in
  ex56) echo "$dir/ex56-ne$EX56_NE-np$np.petsc" ;;
  ex12) echo "$dir/ex12-q2-n$EX12_N-np$np.petsc" ;;
  ex62) echo "$dir/ex62-q2q1-n$EX62_N-np$np.petsc" ;;
  esac
}

matrices() {
  mkdir -p "$dir"
  for t in $tutorials; do
    f=$(file_of $t)
    if [ -s "$f" ]; then
      echo "$f: present"
      continue
    fi
    echo "$f: writing"
    start=$(date +%s)
    # written under a temporary name: an interrupted run leaves no truncated operator behind
    if gen_$t "$f.tmp" > "$dir/$t.log" 2>&1 && [ -s "$f.tmp" ]; then
      mv "$f.tmp" "$f"
      [ -f "$f.tmp.info" ] && mv "$f.tmp.info" "$f.info"
      echo "$f: $(($(date +%s) - start)) s, $(stat -c %s "$f") bytes"
    else
      echo "$f: FAILED after $(($(date +%s) - start)) s, see $dir/$t.log"
      tail -5 "$dir/$t.log"
      rm -f "$f.tmp" "$f.tmp.info"
    fi
  done
}

bench() {
  mkdir -p "$out"
  names=${*:-$generated $tutorials}
  for m in $names; do
    case " $generated " in
    *" $m "*)
      args=(-matrix $m -name $m)
      [ $m = rmat ] && args+=(-n $RMAT_SCALE) ;;
    *)
      f=$(file_of $m)
      [ -n "$f" ] || { echo "unknown matrix $m (one of: $generated $tutorials)"; continue; }
      [ -s "$f" ] || tutorials=$m matrices
      [ -s "$f" ] || { echo "$m: no operator, skipped"; continue; }
      args=(-matrix "$f" -name $m) ;;
    esac
    echo "== $m"
    start=$(date +%s)
    timeout $tmo $bin/spmvbench "${args[@]}" -types "$types" -reps $reps -csv "$out/suite.csv" ${SUITE_BENCH_OPTS:-} 2>&1 | tee "$out/$m.txt"
    rc=${PIPESTATUS[0]}
    [ $rc = 0 ] || echo "spmvbench on $m failed (exit $rc$([ $rc = 124 ] && echo ", over SUITE_TIMEOUT=$tmo s"))"
    echo "== $m: $(($(date +%s) - start)) s"
  done
}

report() {
  [ -s "$out/suite.csv" ] || { echo "no $out/suite.csv: run bench/suite.sh bench first"; return 1; }
  python3 bench/suite-report.py --base "${SUITE_BASE:-aijcusparse}" "$out/suite.csv" "$out"
}

case "${1:-all}" in
matrices) matrices ;;
bench) shift; bench "$@" ;;
report) report ;;
all) matrices; bench; report ;;
*) sed -n '2,24p' "$0"; exit 2 ;;
esac
