#!/usr/bin/env bash
# Demo solve: PETSc's stock SNES ex19 (driven cavity) with aij (CPU), aijcusparse (GPU), brc, cmrs,
# argcsr, ipcsr and ellr, same options otherwise; prints iterations and where the time went (from -log_view).
#   examples/demo.sh [grid points per side] [extra ex19 options]
set -u
cd "$(dirname "$0")/.."
. scripts/petsc-env.sh
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
lib=$PWD/lib/libpetscspmv.so
types=$(scripts/formats.sh) # every registered format
gpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then gpu=1; fi
n=${1:-$([ $gpu = 1 ] && echo 192 || echo 96)}
shift || true
common="-da_grid_x $n -da_grid_y $n -pc_type jacobi -ksp_type gmres -ksp_rtol 1e-8 -snes_rtol 1e-8 -snes_converged_reason -log_view $*"
[ $gpu = 1 ] && common="$common -log_view_gpu_time"
logs=build/demo; mkdir -p $logs

ev() { awk -v e="$1" '$1 == e { print $4; exit }' "$2"; }          # max time of a log_view event
cnt() { awk -v e="$1" '$1 == e { print $2; exit }' "$2"; }
run() { # label args...
  local label=$1; shift
  local f=$logs/$(echo "$label" | tr -c 'A-Za-z0-9' _).log
  if ! timeout 600 build/bin/ex19 $common "$@" >"$f" 2>&1; then
    printf "%-26s failed, see %s\n" "$label" "$f"; return
  fi
  local newton=$(grep -o "Nonlinear solve converged due to [A-Z_]* iterations [0-9]*" "$f" | awk '{print $NF}')
  local build=$(awk '$1 ~ /^Mat(BRC|CMRS|ARGCSR|IPCSR|ELLR|SPMV)Build$/ { print $4; exit }' "$f")
  printf "%-26s %7s %9s %10s %10s %10s %10s %10s\n" "$label" "${newton:-?}" "$(cnt MatMult "$f")" "$(ev MatMult "$f")" "$(ev PCApply "$f")" "$(ev KSPSolve "$f")" "$(ev SNESSolve "$f")" "$build"
}
echo "SNES ex19, ${n}x${n} grid (4 fields, $((4 * n * n)) unknowns), GMRES + Jacobi; times in seconds (-log_view max)"
[ $gpu = 1 ] && echo "GPU: $(nvidia-smi -L | head -1)" || echo "No GPU visible: aijcusparse is skipped; our types use AIJ's product unless -mat_<fmt>_backend host asks for the format's reference kernel (shown)."
printf "%-26s %7s %9s %10s %10s %10s %10s %10s\n" type Newton MatMults MatMult PCApply KSPSolve SNESSolve Build
run "aij (CPU)" -dm_mat_type aij
if [ $gpu = 1 ]; then
  run "aijcusparse (GPU)" -dm_mat_type aijcusparse -dm_vec_type cuda
  for t in $types; do run "$t (GPU)" -dll_append $lib -dm_mat_type $t -dm_vec_type cuda; done
else
  run "brc (no GPU: AIJ's product)" -dll_append $lib -dm_mat_type brc
  for t in $types; do run "$t (host reference)" -dll_append $lib -dm_mat_type $t -mat_${t}_backend host; done
fi
# What a user gains per preconditioner, at a size where the GPU is not launch-bound: KSPSolve of
# brc next to aijcusparse's on SNES ex19 256 x 256 (PETSc's defaults first)
if [ $gpu = 1 ] && [ "${PETSCSPMV_DEMO_SPEEDUPS:-1}" = 1 ]; then
  solve() { # label args... -> KSPSolve seconds
    local f=$logs/speedup-$(echo "$1" | tr -c 'A-Za-z0-9' _).log; shift
    timeout 600 build/bin/ex19 -da_grid_x 256 -da_grid_y 256 -snes_converged_reason -log_view -dm_vec_type cuda "$@" >"$f" 2>&1 && ev KSPSolve "$f"
  }
  line() { # preconditioner ex19-options...
    local pc=$1; shift
    local ref ours
    ref=$(solve "aijcusparse $pc" -dm_mat_type aijcusparse "$@")
    ours=$(solve "brc $pc" -dll_append $lib -dm_mat_type brc "$@" ${SPMV_OPTS:-})
    if [ -n "$ref" ] && [ -n "$ours" ]; then
      printf "%-58s brc %8.3f s, aijcusparse %8.3f s: %.2fx the time\n" "$pc" "$ours" "$ref" "$(echo "$ours $ref" | awk '{ print $1 / $2 }')"
    else printf "%-58s failed, see %s/speedup-*.log\n" "$pc" "$logs"; fi
  }
  echo
  echo "KSPSolve, SNES ex19 256x256, brc next to aijcusparse (less than 1.00x: brc is faster):"
  line "PETSc's defaults (GMRES + ILU(0): ours by MATSOLVERSPMVFACTOR, aijcusparse's by cuSPARSE)"
  SPMV_OPTS="-pc_factor_mat_solver_type cusparse" line "ILU(0) by cuSPARSE asked for (-pc_type ilu -pc_factor_mat_solver_type cusparse)" -pc_type ilu
  line "Chebyshev + Jacobi polynomial (products only)" -pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 10 -ksp_ksp_norm_type none -ksp_pc_type jacobi -ksp_ksp_chebyshev_esteig 0,0.005,0,1.1
  line "Jacobi" -pc_type jacobi
fi
echo "logs: $logs/"
