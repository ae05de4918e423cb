#!/usr/bin/env bash
# Stock PETSc tutorials run as a new user would: PETSc's defaults plus only the matrix type (and CUDA
# vectors), aijcusparse and our types in the same run, one line per program and type from -log_view.
# Needs a GPU (and the programs: make).
#
#   bench/stock.sh [-t "aijcusparse brc"] [-c "case ..."] [-r N] [-o DIR] [--timeout S] [--timed] [--list]
#
# Per case and type: ranks, iterations (all linear solves'), the main event (KSPSolve, SNESSolve or
# TSStep), KSPSolve, PCSetUp, the time outside the linear solves (main event - KSPSolve; for a KSP
# program the whole run's time - KSPSolve), KSPSolve's host-to-device / device-to-host copy counts,
# and the main event's ratio to aijcusparse's (the first type). Without GPU timers by default (a timed
# kernel waits for its stream: KSPSolve is then what a user's run takes), where PETSc prints no time
# for events with GPU work: those (PCSetUp mostly) are estimated from their share of the run (%T,
# whole percents) and marked ~; --timed adds -log_view_gpu_time. -r N runs each case N times,
# alternating the types, and keeps each type's fastest main event (timings move 5-15% between runs;
# on a shared host whole processes run up to 1.5x slower in host-only events): the line is the
# fastest run's, the last column the ratio of the types' medians.
# Logs: DIR/<case>-<type>.log (DIR/<case>-<type>-<run>.log with -r; default $OUT/stock on the lent
# GPU machine, otherwise results/stock, git-ignored). --list prints the cases and their commands.
set -u
cd "$(dirname "$0")/.."
root=$PWD
types="aijcusparse brc" cases="" out=${OUT:+$OUT/stock} limit=300 timers= list=0 reps=1
out=${out:-results/stock}
while [ $# -gt 0 ]; do
  case $1 in
  -t) types=$2; shift 2 ;;
  -c) cases=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  --timeout) limit=$2; shift 2 ;;
  --timed) timers=-log_view_gpu_time; shift ;;
  -r) reps=$2; shift 2 ;;
  --list) list=1; shift ;;
  -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "unknown argument $1"; exit 2 ;;
  esac
done
. scripts/petsc-env.sh >/dev/null
bin=$root/build/bin lib=$root/lib/libpetscspmv.so

# name | ranks | main event | program and options (MT: the matrix type options, a DM's or a plain matrix's)
table=(
  "ex19|1|SNESSolve|ex19 -da_grid_x 256 -da_grid_y 256 DM"                                          # SNES, DMDA 2D, 4 fields, GMRES + ILU(0)
  "ex19-np2|2|SNESSolve|ex19 -da_grid_x 256 -da_grid_y 256 DM"                                      # the same on 2 ranks: block Jacobi + ILU(0)
  "snes5-gamg|1|SNESSolve|snes_ex5 -da_grid_x 1024 -da_grid_y 1024 -pc_type gamg DM"                # Bratu, Newton + GAMG
  "snes5|1|SNESSolve|snes_ex5 -da_grid_x 512 -da_grid_y 512 DM"                                     # Bratu, GMRES + ILU(0)
  "ksp29-mg|1|KSPSolve|ksp_ex29 -da_grid_x 1025 -da_grid_y 1025 -ksp_type cg -pc_type mg -pc_mg_levels 9 DM" # 2D Poisson, PCMG rediscretized on 9 levels
  "ksp29-mg-np2|2|KSPSolve|ksp_ex29 -da_grid_x 1025 -da_grid_y 1025 -ksp_type cg -pc_type mg -pc_mg_levels 9 DM"
  "ksp29-mg129|1|KSPSolve|ksp_ex29 -da_grid_x 129 -da_grid_y 129 -ksp_type cg -pc_type mg -pc_mg_levels 6 DM" # small 2D hierarchies: the SOR path chosen by cost
  "ksp29-mg257|1|KSPSolve|ksp_ex29 -da_grid_x 257 -da_grid_y 257 -ksp_type cg -pc_type mg -pc_mg_levels 7 DM"
  "ksp29-galerkin65|1|KSPSolve|ksp_ex29 -da_grid_x 65 -da_grid_y 65 -ksp_type richardson -pc_type mg -pc_mg_levels 5 -pc_mg_galerkin -mg_levels_ksp_type richardson -mg_levels_pc_type sor DM"
  "snes48-mg|1|SNESSolve|snes_ex48 -M 6 -P 4 -da_refine 3 -pc_type mg THI" # 3D, 2 unknowns a node, 27-point (box) stencil, PCMG's defaults
  "ksp10-circuit|1|KSPSolve|ksp_ex10 -f @circuit -rhs one -pc_type none -ksp_max_it 300 MAT" # a circuit matrix (longest row 1157): ELLR declines it lazily (-t "aijcusparse ellr")
  "ksp45-sor|1|KSPSolve|ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type cg -pc_type sor DM" # CG + PCSOR (symmetric sweeps)
  "ksp45-sor-np2|2|KSPSolve|ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type cg -pc_type sor DM" # local symmetric sweeps
  "ex19-mg|1|SNESSolve|ex19 -da_grid_x 65 -da_grid_y 65 -da_refine 3 -pc_type mg DM"               # PCMG's defaults (Chebyshev/SOR), 4 fields
  "ex19-mg-np2|2|SNESSolve|ex19 -da_grid_x 65 -da_grid_y 65 -da_refine 3 -pc_type mg DM"
  "ksp34-gamg|1|KSPSolve|ksp_ex34 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type cg -pc_type gamg DM" # 3D Laplacian with a null space
  "ksp45|1|KSPSolve|ksp_ex45 -da_grid_x 96 -da_grid_y 96 -da_grid_z 96 DM"                          # 3D Laplacian, GMRES + ILU(0)
  "ksp45-gamg-np2|2|KSPSolve|ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type cg -pc_type gamg DM"
  "ksp45-cheb|1|KSPSolve|ksp_ex45 -da_grid_x 128 -da_grid_y 128 -da_grid_z 128 -ksp_type chebyshev -pc_type jacobi -ksp_max_it 400 DM" # Chebyshev/Jacobi
  "ksp2-asm-np2|2|KSPSolve|ksp_ex2 -m 512 -n 512 -pc_type asm MAT"                                  # plain AIJ assembly, GMRES + additive Schwarz + ILU(0)
  "ksp56-gamg|1|KSPSolve|ksp_ex56 -ne 32 -ksp_type cg -pc_type gamg MAT"                            # 3D elasticity, plain matrix, GAMG
  "snes12|1|SNESSolve|snes_ex12 -dm_plex_box_faces 256,256 -dm_plex_simplex 0 -petscspace_degree 2 -run_type full DM" # DMPlex Q2 Poisson
  "snes12-gamg-3d|1|SNESSolve|snes_ex12 -dm_plex_dim 3 -dm_plex_box_faces 32,32,32 -dm_plex_simplex 0 -petscspace_degree 1 -run_type full -pc_type gamg DM"
  "ts-adr5|1|TSStep|ts_adr_ex5 -da_grid_x 256 -da_grid_y 256 -ts_max_steps 10 DM"                  # TS ARKIMEX, DMDA 2 fields, host-assembled Jacobian
  "ts45|1|TSStep|ts_ex45 -dm_plex_simplex 0 -dm_plex_box_faces 128,128 -temp_petscspace_degree 1 -ts_max_steps 10 DM" # TS, DMPlex FEM heat equation
  "snes3-chain|1|SNESSolve|snes_ex3 -n 1000000 -nox MATDM"                                        # 1D, tridiagonal Jacobian: an ILU(0) factor that is one chain
  "ksp2-strip|1|KSPSolve|ksp_ex2 -m 20000 -n 4 MAT"                                                 # a thin strip, GMRES + ILU(0): the factor's place chosen by cost
)
[ -n "$cases" ] || cases=$(for e in "${table[@]}"; do echo "${e%%|*}"; done)

cmdline() { # case type -> ranks|event|command
  local e
  for e in "${table[@]}"; do
    IFS='|' read -r name np event cmd <<<"$e"
    [ "$name" = "$1" ] || continue
    local mt load=
    [ "$2" = aijcusparse ] || load="-dll_append $lib"
    case $cmd in
    *" DM") mt="-dm_mat_type $2 -dm_vec_type cuda" ;;
    *" MAT") mt="-mat_type $2 -vec_type cuda" ;;
    *" MATDM") mt="-mat_type $2 -vec_type cuda -dm_vec_type cuda" ;; # a plain matrix, a DMDA's vectors
    *" THI") mt="-thi_mat_type $2 -dm_mat_type $2 -dm_vec_type cuda" ;; # SNES ex48 sets its levels' type from -thi_mat_type
    esac
    cmd=${cmd//@circuit/$out/circuit1157.petsc} # made below by spmvbench's generator
    echo "$np|$event|$bin/${cmd% *} $mt $load"
    return 0
  done
  echo "unknown case $1" >&2
  return 1
}

if [ $list = 1 ]; then
  for c in $cases; do IFS='|' read -r np event cmd <<<"$(cmdline "$c" brc)"; echo "$c (np $np, $event): $cmd"; done
  exit 0
fi

mkdir -p "$out"
case " $cases " in *" ksp10-circuit "*)
  [ -f "$out/circuit1157.petsc" ] || "$bin/spmvbench" -matrix circuit -n 1157 -types aij -reps 1 -save "$out/circuit1157.petsc" >/dev/null ;;
esac
ev() { # log event -> max time (s); from its share of the run (~) where PETSc prints none; or -
  awk -v e="$2" '$1 == "Time" && $2 == "(sec):" { T = $3 } $1 == e && NF > 10 { t = $4 == "n/a" ? sprintf("~%.3g", $11 * T / 100) : $4 } END { print t == "" ? "-" : t }' "$1"
}
num() { echo "${1#\~}"; }
printf "%-15s %-12s %3s %6s %10s %10s %10s %10s %10s %12s %7s%s\n" case type np iters main KSPSolve PCSetUp outside total "KSP H2D/D2H" ratio "$([ "$reps" = 1 ] || echo "  median ratio")"
median() { tr ' ' '\n' | grep -v '^-*$' | sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for c in $cases; do
  declare -A best=() all=()
  for r in $(seq 1 "$reps"); do
    for t in $types; do
      line=$(cmdline "$c" "$t") || exit 2
      IFS='|' read -r np event cmd <<<"$line"
      log=$out/$c-$t.log
      [ "$reps" = 1 ] || log=$out/$c-$t-$r.log
      echo "$PETSCSPMV_MPIEXEC_N $np $cmd -log_view $timers -use_gpu_aware_mpi 0" >"$log.cmd"
      timeout "$limit" $PETSCSPMV_MPIEXEC_N "$np" $cmd -log_view $timers -use_gpu_aware_mpi 0 -ksp_converged_reason </dev/null >"$log" 2>&1
      rc=$?
      if [ $rc != 0 ]; then
        echo "  ($c $t: exit $rc, see $log)"
        { grep -m 6 "ERROR" "$log" || tail -n 8 "$log"; } | sed 's/^/  (log) /'
      fi
      main=$(num "$(ev "$log" "$event")")
      all[$t]="${all[$t]:-} $main"
      if [ -z "${best[$t]:-}" ] || { [ "$main" != - ] && awk -v a="$main" -v b="${best[$t]%% *}" 'BEGIN { exit !(b == "-" || a < b) }'; }; then best[$t]="$main $log"; fi
    done
  done
  base= mbase=
  for t in $types; do
    IFS=' ' read -r main log <<<"${best[$t]}"
    IFS='|' read -r np event cmd <<<"$(cmdline "$c" "$t")"
    its=$(grep -E "Linear .*solve (converged|did not converge)" "$log" | grep -Eo "iterations [0-9]+" | awk '{ s += $2 } END { print s + 0 }')
    ksp=$(ev "$log" KSPSolve) pcs=$(ev "$log" PCSetUp)
    total=$(awk '$1 == "Time" && $2 == "(sec):" { print $3; exit }' "$log")
    cp=$(awk '$1 == "KSPSolve" { print $(NF-4) "/" $(NF-2) }' "$log")
    outside=$(awk -v m="$main" -v k="$(num "$ksp")" -v T="$total" -v e="$event" 'BEGIN { if (k == "-" || m == "-") print "-"; else printf "%.4g", (e == "KSPSolve" ? T : m) - k }')
    ratio=-
    if [ -z "$base" ]; then base=$main; elif [ "$main" != - ] && [ "$base" != - ]; then ratio=$(awk -v a="$main" -v b="$base" 'BEGIN { printf "%.2fx", a / b }'); fi
    mratio=
    if [ "$reps" != 1 ]; then
      med=$(echo "${all[$t]}" | median)
      if [ -z "$mbase" ]; then mbase=$med mratio=" (median $med s)"; elif [ "$med" != - ] && [ "$mbase" != - ]; then mratio=$(awk -v a="$med" -v b="$mbase" 'BEGIN { printf "  %.2fx (median %s s)", a / b, a }'); fi
    fi
    printf "%-15s %-12s %3s %6s %10s %10s %10s %10s %10s %12s %7s%s\n" "$c" "$t" "$np" "$its" "$main" "$ksp" "$pcs" "$outside" "${total:--}" "${cp:--}" "$ratio" "$mratio"
  done
done
