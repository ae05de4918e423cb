#!/usr/bin/env bash
# Whole solves with each matrix type next to aijcusparse, in one run, from -log_view: the
# acceptance cases of the GPU-resident types. Needs a GPU (and the stock programs: make).
#
#   bench/solves.sh [-t "aijcusparse brc cmrs argcsr ipcsr ellr"] [-c "ex19ilu ex56gamg ex19poly"] [-n 1]
#                      [-o DIR] [--timeout S] [--flame] [--untimed]
#
#   ex19ilu    SNES ex19 256 x 256, PETSc's default PC (ILU(0); block Jacobi + ILU(0) on 2 ranks)
#   ex19ilu512 the same on 512 x 512
#   ex45jac    KSP ex45 160^3 (3D Laplacian, 7 points), CG + Jacobi: a short solve of products
#   ex45gamg   the same with CG + GAMG (PETSc's defaults)
#   ex56iccdef KSP ex56 -ne 47, CG + ICC(0) with PETSc's default factor package (-pc_type icc only)
#   lapiccdef  KSP ex2, 2D Laplacian 1000 x 1000, CG + ICC(0) with PETSc's default factor package
#   lapiccdef<k>  the same with k levels of fill (-pc_factor_levels k)
#   ex56gamg   KSP ex56 -ne 48, CG + GAMG (Chebyshev/Jacobi smoothers, near-null space)
#   ex56gamgdef  the same with PETSc's default GAMG options (no near-null space)
#   ex56gamg0  the same, unsmoothed aggregation (-pc_gamg_agg_nsmooths 0)
#   ex5gamg    SNES ex5 (Bratu) 1024 x 1024, Newton + GAMG with PETSc's defaults (the interpolation reused
#              from the first Newton step on; issue 51's Newton target)
#   ex56gamgnns  KSP ex56 -ne 48, CG + GAMG, PETSc's defaults with the rigid-body near-null space
#              (-use_mat_nearnullspace; issue 51's target for the set-up on the device)
#   ex19mg     SNES ex19 65 x 65 refined twice, PCMG with Galerkin coarse operators (MAIJ interpolation)
#   ex19poly   SNES ex19 1024 x 1024, a polynomial PC of products only (10 Chebyshev/Jacobi steps)
#   ex19spmv   SNES ex19 256 x 256, ILU(0) (block Jacobi + ILU(0) on 2 ranks) factored and solved by
#              MATSOLVERSPMVFACTOR (-pc_factor_mat_solver_type spmvfactor); aijcusparse by cuSPARSE
#   ex19spmv512  the same on 512 x 512
#   lapicc     KSP ex2, 2D Laplacian 1000 x 1000, CG + ICC(0) by MATSOLVERSPMVFACTOR; aijcusparse by cuSPARSE
#   ex56icc    KSP ex56 -ne 47 elasticity, CG + ICC(0) by MATSOLVERSPMVFACTOR; aijcusparse by cuSPARSE
#   ex19jac<k> ex19spmv with the triangular solves approximated by k block-Jacobi sweeps
#              (-petscspmv_factor_trsv jacobi -petscspmv_factor_trsv_sweeps k); aijcusparse: cuSPARSE's exact solves
#   lapjac<k>, ex56jac<k>  lapicc, ex56icc the same way
#   ex19lev<k>, laplev<k>  ex19spmv, lapicc with k levels of fill (-pc_factor_levels k), both solver types
#   <case>@N   any case above at another size: N grid points per side (ex19, ex45, ex2, ex5) or -ne N (ex56),
#              e.g. ex19ilu@1024, ex45gamg@202 (bench/scaling.sh runs them on 1, 2, 4, ... GPUs)
#   ex19isai   ex19spmv with the triangular solves approximated by incomplete sparse approximate
#              inverses of L and U (-petscspmv_factor_trsv isai); aijcusparse: cuSPARSE's exact solves
#
# Prints, per case and type: iterations (all linear solves'), SNESSolve, KSPSolve, PCSetUp, PCApply, MatSolve, MatMult
# seconds, the format's build + refresh seconds, aijcusparse's CSR uploads (MatCUSPARSCopyTo: inside
# "convert" for our types, inside MatMult for aijcusparse), the ghost exchange (VecScatterBegin + End,
# max over ranks; 0 on one rank) and KSPSolve's host<->device copy counts.
# Logs: DIR/<case>-<type>-np<n>.log (default: $OUT/solves when OUT is set, as on the lent GPU
# machine, otherwise results/solves, git-ignored). --flame also keeps each run's nested timings
# (PETSc's ascii_flamegraph) in <log>.flame and prints GAMG's set-up part by part next to
# aijcusparse's (bench/gamg-setup.py DIR). --untimed leaves out -log_view_gpu_time: a timed kernel
# waits for its stream, which serializes what runs beside it (the MPI types' ghost stream); KSPSolve
# is then what a user's run takes, and the events with GPU work print "-".
set -u
cd "$(dirname "$0")/.."
root=$PWD
types="aijcusparse brc cmrs argcsr ipcsr ellr" cases="ex19ilu ex56gamg ex19poly" np=1 out=${OUT:+$OUT/solves} limit=400 flame=0 timers="-log_view_gpu_time"
out=${out:-results/solves}
while [ $# -gt 0 ]; do
  case $1 in
  -t) types=$2; shift 2 ;;
  -c) cases=$2; shift 2 ;;
  -n) np=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  --timeout) limit=$2; shift 2 ;;
  --flame) flame=1; shift ;;
  --untimed) timers=; shift ;;
  -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "unknown argument $1"; exit 2 ;;
  esac
done
. scripts/petsc-env.sh >/dev/null
bin=$root/build/bin lib=$root/lib/libpetscspmv.so
mkdir -p "$out"
mpi="$PETSCSPMV_MPIEXEC_N $np"
gpu="-log_view $timers -use_gpu_aware_mpi 0"
poly="-pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 10 -ksp_ksp_norm_type none -ksp_pc_type jacobi -ksp_ksp_chebyshev_esteig 0,0.005,0,1.1"

jac() { # case<k> type -> the options of k block-Jacobi sweeps (none for aijcusparse: cuSPARSE's exact solves)
  local sub=
  [ "$np" -gt 1 ] && sub=sub_
  [ "$2" = aijcusparse ] || echo "-${sub}petscspmv_factor_trsv jacobi -${sub}petscspmv_factor_trsv_sweeps ${1##*[a-z]}"
}
args() { # case[@N] type -> the program and its options
  case $1 in *@*) # another size: the case's own command with its grid (or -ne) replaced
    local base
    base=$(args "${1%@*}" "$2") || return 1
    echo "$base" | sed -E "s/-da_grid_([xyz]) [0-9]+/-da_grid_\1 ${1#*@}/g; s/-ne [0-9]+/-ne ${1#*@}/; s/ -m [0-9]+ -n [0-9]+/ -m ${1#*@} -n ${1#*@}/"
    return ;;
  esac
  local c=$1 t=$2 load=() fs=spmv sub= ilu="-pc_type ilu" icc="-pc_type icc"
  [ "$t" = aijcusparse ] || load=(-dll_append "$lib")
  [ "$t" = aijcusparse ] && fs=cusparse
  [ "$np" -gt 1 ] && sub=sub_ ilu="-pc_type bjacobi -sub_pc_type ilu" icc="-pc_type bjacobi -sub_pc_type icc"
  case $c in
  ex19ilu) echo "$bin/ex19 -da_grid_x 256 -da_grid_y 256 -snes_converged_reason -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t ${load[*]}" ;;
  ex19ilu512) echo "$bin/ex19 -da_grid_x 512 -da_grid_y 512 -snes_converged_reason -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t ${load[*]}" ;;
  ex19poly) echo "$bin/ex19 -da_grid_x 1024 -da_grid_y 1024 -snes_converged_reason -ksp_converged_reason -ksp_max_it 4096 -dm_vec_type cuda -dm_mat_type $t $poly ${load[*]}" ;;
  ex45jac) echo "$bin/ksp_ex45 -da_grid_x 160 -da_grid_y 160 -da_grid_z 160 -ksp_type cg -pc_type jacobi -ksp_converged_reason -dm_mat_type $t -dm_vec_type cuda ${load[*]}" ;;
  ex45gamg) echo "$bin/ksp_ex45 -da_grid_x 160 -da_grid_y 160 -da_grid_z 160 -ksp_type cg -pc_type gamg -ksp_converged_reason -dm_mat_type $t -dm_vec_type cuda ${load[*]}" ;;
  ex56iccdef) echo "$bin/ksp_ex56 -ne 47 -ksp_type cg $icc -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  lapiccdef) echo "$bin/ksp_ex2 -m 1000 -n 1000 -ksp_type cg $icc -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  lapiccdef[0-9]*) echo "$(args lapiccdef "$t") -${sub}pc_factor_levels ${c##*[a-z]}" ;;
  ex56gamgdef) echo "$bin/ksp_ex56 -ne 48 -ksp_type cg -pc_type gamg -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex5gamg) echo "$bin/snes_ex5 -da_grid_x 1024 -da_grid_y 1024 -pc_type gamg -snes_converged_reason -ksp_converged_reason -dm_mat_type $t -dm_vec_type cuda ${load[*]}" ;;
  ex56gamgnns) echo "$bin/ksp_ex56 -ne 48 -ksp_type cg -pc_type gamg -use_mat_nearnullspace -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex56gamg0) echo "$bin/ksp_ex56 -ne 48 -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 0 -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex19mg) echo "$bin/ex19 -da_grid_x 65 -da_grid_y 65 -da_refine 2 -pc_type mg -pc_mg_galerkin pmat -snes_converged_reason -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t ${load[*]}" ;;
  ex56gamg) echo "$bin/ksp_ex56 -ne 48 -alpha 1.e-3 -ksp_type cg -pc_type gamg -pc_gamg_agg_nsmooths 1 -mg_levels_ksp_type chebyshev -mg_levels_pc_type jacobi -ksp_rtol 1e-8 -ksp_converged_reason -use_mat_nearnullspace -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex19spmv) echo "$bin/ex19 -da_grid_x 256 -da_grid_y 256 -snes_converged_reason -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t $ilu -${sub}pc_factor_mat_solver_type $fs ${load[*]}" ;;
  ex19spmv512) echo "$bin/ex19 -da_grid_x 512 -da_grid_y 512 -snes_converged_reason -ksp_converged_reason -dm_vec_type cuda -dm_mat_type $t $ilu -${sub}pc_factor_mat_solver_type $fs ${load[*]}" ;;
  lapicc) echo "$bin/ksp_ex2 -m 1000 -n 1000 -ksp_type cg $icc -${sub}pc_factor_mat_solver_type $fs -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex56icc) echo "$bin/ksp_ex56 -ne 47 -ksp_type cg $icc -${sub}pc_factor_mat_solver_type $fs -ksp_converged_reason -mat_type $t -vec_type cuda ${load[*]}" ;;
  ex19jac[0-9]*) echo "$(args ex19spmv "$t") $(jac "$c" "$t")" ;;
  lapjac[0-9]*) echo "$(args lapicc "$t") $(jac "$c" "$t")" ;;
  ex56jac[0-9]*) echo "$(args ex56icc "$t") $(jac "$c" "$t")" ;;
  ex19isai) echo "$(args ex19spmv "$t") $([ "$t" = aijcusparse ] || echo "-${sub}petscspmv_factor_trsv isai")" ;;
  ex19lev[0-9]*) echo "$(args ex19spmv "$t") -${sub}pc_factor_levels ${c##*[a-z]}" ;;
  laplev[0-9]*) echo "$(args lapicc "$t") -${sub}pc_factor_levels ${c##*[a-z]}" ;;
  *) echo "unknown case $c" >&2; return 1 ;;
  esac
}
ev() { # log event -> max time (s), or -
  awk -v e="$2" '$1 == e && NF > 10 && $4 != "n/a" { t = $4 } END { print t == "" ? "-" : t }' "$1"
}
evsum() { # log regex -> summed max time of the events matching
  awk -v e="$2" '$1 ~ e && NF > 10 && $4 != "n/a" { t += $4; n++ } END { print n ? sprintf("%.4g", t) : "-" }' "$1"
}
printf "%-10s %-12s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %12s\n" case type iters SNESSolve KSPSolve PCSetUp PCApply MatSolve MatMult convert upload scatter "KSP H2D/D2H"
for c in $cases; do
  for t in $types; do
    log=$out/$c-$t-np$np.log
    cmd=$(args "$c" "$t") || exit 2
    view=$gpu
    [ $flame = 1 ] && view=${gpu/-log_view /-log_view ascii,ascii:$log.flame:ascii_flamegraph } # the summary and the nested timings
    echo "$mpi $cmd $view" >"$log.cmd"
    timeout "$limit" $mpi $cmd $view >"$log" 2>&1
    rc=$?
    if [ $rc != 0 ]; then # the error's first lines (or the log's last), for machines whose logs do not come back
      echo "  ($c $t: exit $rc, see $log)"
      { grep -m 6 "ERROR" "$log" || tail -n 8 "$log"; } | sed 's/^/  (log) /'
    fi
    its=$(grep -E "Linear solve (converged|did not converge)" "$log" | grep -Eo "iterations [0-9]+" | awk '{ s += $2 } END { print s + 0 }')
    fmt=$(echo "$t" | tr a-z A-Z)
    cp=$(awk '$1 == "KSPSolve" { print $(NF-4) "/" $(NF-2) }' "$log")
    printf "%-10s %-12s %9s %9s %9s %9s %9s %9s %9s %9s %9s %9s %12s\n" "$c" "$t" "$its" "$(ev "$log" SNESSolve)" "$(ev "$log" KSPSolve)" "$(ev "$log" PCSetUp)" "$(ev "$log" PCApply)" "$(ev "$log" MatSolve)" \
      "$(ev "$log" MatMult)" "$(evsum "$log" "^Mat${fmt}(Build|Refresh)$")" "$(evsum "$log" "^MatCUSPARSCopyTo$")" "$(evsum "$log" "^VecScatter(Begin|End)$")" "${cp:--}"
  done
done
if [ $flame = 1 ] && ls "$out"/*.log.flame >/dev/null 2>&1; then
  echo
  python3 bench/gamg-setup.py "$out"
fi
