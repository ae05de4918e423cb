#!/usr/bin/env bash
# The BRC paper's Table 5 study (Ashari et al., ICS'14, section 6) on today's hardware: PETSc's
# stock SNES ex19 (driven cavity) solved with every matrix type, ILU(0) and a polynomial
# preconditioner, GMRES; iterations and where the time goes, from -log_view.
#
#   bench/ex19-study.sh [-n "1 2"] [-g "256"] [-t "aij aijcusparse brc cmrs argcsr ipcsr ellr"]
#                          [-p "ilu poly"] [-o DIR] [--timeout S] [--max-it N] [--keep] [--force]
#                          [-- extra ex19 options]
#
#   -n  MPI ranks, a list (default 1). With 2 ranks on a machine with 2 GPUs each rank gets
#       its own GPU: PETSc's default device is (rank in PETSC_COMM_WORLD) % (visible devices).
#   -g  grid points per side, a list (default 256: see "Grid" below)
#   -t  matrix types (aijcusparse needs a GPU and is reported as skipped without one)
#   -p  preconditioners: ilu, poly (below), iluhost (aijcusparse with PETSc's host ILU, as the
#       paper's CUSP type; the other types' ILU is the host one already, so only aijcusparse runs it),
#       jacobi (the demo's)
#   -o  output directory (default $OUT/ex19-study when OUT is set, otherwise results/ex19-study,
#       git-ignored); runs are added to what is there, a run is
#       repeated only if its log is missing or --force is given
#   --timeout  seconds per ex19 run (default 300)
#   --max-it   cap of GMRES iterations per linear solve (default 4 x grid: at 256 the most any
#              run needs is 770, and the counts about double with the grid)
#   --keep     keep the solution vectors (PETSc binary, 8 bytes per unknown)
#
# Output: DIR/env.txt (PETSc, GPU, CUDA, CPU, MPI), DIR/commands.txt (every command exactly as
# run), DIR/runs/*.log (ex19's output with -log_view), *.flame.txt (the nested profile), and,
# through bench/ex19-study.py, DIR/results.csv and DIR/results.md. The chart:
#   python3 bench/ex19-study.py plot DIR/results.csv        (needs matplotlib; any machine)
#
# Grid: ex19's default problem on a 256 x 256 grid (4 fields: 262144 unknowns, 5.2 M nonzeros)
# is the paper's: ILU(0) + GMRES takes exactly the 657 and 770 iterations of its Table 5. The GPU
# is not busy there (a product takes tens of microseconds); -g 1024 (4.2 M unknowns, 84 M
# nonzeros: 0.25 to 0.4 ms per product on an H200) is the size where it is, but there the host
# runs (aij, and ILU with every type: its triangular solves are on the host) take far longer than
# the 10 minutes a command may run on the lent GPU machine: e.g. -g 1024 -p poly -t "aijcusparse
# brc cmrs argcsr".
set -u
here=$PWD
cd "$(dirname "$0")/.."
root=$PWD

nps=1 grids=256 types="aij aijcusparse brc cmrs argcsr ipcsr ellr" pcs="ilu poly" out=${OUT:+$OUT/ex19-study}
out=${out:-$root/results/ex19-study}
limit=300 maxit= keep=0 force=0 extra=()
while [ $# -gt 0 ]; do
  case $1 in
  -n) nps=$2; shift 2 ;;
  -g) grids=$2; shift 2 ;;
  -t) types=$2; shift 2 ;;
  -p) pcs=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  --timeout) limit=$2; shift 2 ;;
  --max-it) maxit=$2; shift 2 ;;
  --keep) keep=1; shift ;;
  --force) force=1; shift ;;
  --) shift; extra=("$@"); break ;;
  -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "unknown argument $1 (see $0 --help)"; exit 2 ;;
  esac
done
case $out in /*) ;; *) out=$here/$out ;; esac   # relative to where the command was given
case $out in *[:,\ ]*) echo "the output directory may not contain ':', ',' or spaces (they go into -log_view's argument)"; exit 2 ;; esac

. scripts/petsc-env.sh
# The GPU machine's Open MPI is not CUDA-aware: MPI gets host buffers
case " ${PETSC_OPTIONS:-} " in *" -use_gpu_aware_mpi 0 "*) ;; *) export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0" ;; esac
bin=$root/build/bin
lib=$root/lib/libpetscspmv.so
if [ "${PETSCSPMV_VARIANT:-real}" != real ]; then bin=$root/build/$PETSCSPMV_VARIANT/bin lib=$root/build/$PETSCSPMV_VARIANT/lib/libpetscspmv.so; fi
[ -x "$bin/ex19" ] && [ -f "$lib" ] || { echo "missing $bin/ex19 or $lib: run make first"; exit 1; }
gpu=0 ngpu=0
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  gpu=1 ngpu=$(nvidia-smi -L | grep -c GPU)
fi
mkdir -p "$out/runs"

# What the numbers were measured on, for the README
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(uname -n)"
  ver=$(awk '/define PETSC_VERSION_(MAJOR|MINOR|SUBMINOR) /{v = v (v == "" ? "" : ".") $3} END {print v}' "$PETSC_DIR/include/petscversion.h" 2>/dev/null)
  echo "PETSc: ${ver:-?} at $PETSC_DIR"
  conf=$(ls "$PETSC_DIR"/include/petscpkg_version.h "$PETSC_DIR/$PETSC_ARCH"/include/petscpkg_version.h 2>/dev/null | head -1)
  [ -n "$conf" ] && echo "PETSc built with CUDA: $(awk '/define PETSC_PKG_CUDA_VERSION_(MAJOR|MINOR|SUBMINOR) /{v = v (v == "" ? "" : ".") $3} END {print (v == "" ? "no" : v)}' "$conf")"
  if [ $gpu = 1 ]; then
    nvidia-smi -L
    nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader | sed 's/^/GPU: /'
    echo "driver supports CUDA: $(nvidia-smi | grep -o 'CUDA Version: [0-9.]*' | awk '{print $3}')"
  else
    echo "GPU: none visible (aijcusparse skipped; brc, cmrs, argcsr, ipcsr, ellr run their host reference kernels)"
  fi
  command -v nvcc >/dev/null 2>&1 && echo "nvcc: $(nvcc --version | grep -o 'release [0-9.]*')"
  echo "CPU: $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $(nproc) cores"
  echo "MPI: $($PETSCSPMV_MPIEXEC --version 2>&1 | head -1)"
  echo "PETSC_OPTIONS:$PETSC_OPTIONS"
} >"$out/env.txt"
cat "$out/env.txt"

# ex19's own problem (lid velocity 1/(mx my), Grashof 1, Newton rtol 1e-8, KSP rtol 1e-5,
# GMRES(30)) is kept; only the cap of linear iterations is lowered from 10000 to 4 x grid (--max-it)
# so that a solve that stalls ends early, as "did not converge", which the results show.
common=(-snes_converged_reason -ksp_converged_reason)

# The preconditioners. ILU(0): one rank ILU, several ranks block Jacobi with ILU(0) per rank.
# poly: a fixed polynomial in the Jacobi-scaled matrix, made only of products and vector updates:
# PCKSP (inner KSP prefix = PC prefix + "ksp_", so -ksp_ksp_*, -ksp_pc_*) running exactly 10
# Chebyshev iterations (9 products: the initial guess is zero) with norm type none (no norms, no
# reductions, no convergence test), Jacobi inside. Chebyshev needs the extreme eigenvalues of
# D^-1 A: PETSc's default estimates them once per Jacobian with 10 GMRES steps on a deterministic
# "noisy" right-hand side; the transform 0,0.005,0,1.1 aims the polynomial at [0.005, 1.1] x the
# largest estimate instead of PETSc's smoother range [0.1, 1.1]. Degree and range were chosen on
# the 256 x 256 grid (bench/ex19-study.md): fewest products and half the outer iterations of
# 5 Chebyshev iterations. The polynomial is the same linear operator in every outer iteration, so
# the outer Krylov method need not be flexible (checked: right-preconditioned GMRES and FGMRES take
# identical iteration counts); GMRES as for ILU, as in the paper.
pc_options() { # pc np -> options (empty: not run)
  case $1 in
  ilu) if [ "$2" = 1 ]; then echo "-pc_type ilu"; else echo "-pc_type bjacobi -sub_pc_type ilu"; fi ;;
  iluhost) if [ "$2" = 1 ]; then echo "-pc_type ilu -pc_factor_mat_solver_type petsc"
           else echo "-pc_type bjacobi -sub_pc_type ilu -sub_pc_factor_mat_solver_type petsc"; fi ;;
  poly) echo "-pc_type ksp -ksp_ksp_type chebyshev -ksp_ksp_max_it 10 -ksp_ksp_norm_type none -ksp_pc_type jacobi -ksp_ksp_chebyshev_esteig 0,0.005,0,1.1" ;;
  jacobi) echo "-pc_type jacobi" ;;
  *) return 1 ;;
  esac
}
type_options() { # type -> options
  case $1 in
  aij) ;;                                        # CPU: standard vectors, AIJ's products
  aijcusparse) echo "-dm_vec_type cuda" ;;       # cuSPARSE CSR; ILU factored and solved on the GPU
  *) if [ $gpu = 1 ]; then echo "-dm_vec_type cuda -mat_$1_backend cuda"   # a missing GPU is an error, no host fallback
     fi ;;                                       # no GPU: host vectors, host reference kernel
  esac
}

echo "# ex19 study, $(date -u '+%Y-%m-%d %H:%M UTC'); PETSC_OPTIONS='$PETSC_OPTIONS'; run from $root" >>"$out/commands.txt"
status=0
for np in $nps; do
  launch=()
  [ "$np" = 1 ] || launch=($PETSCSPMV_MPIEXEC_N "$np")
  if [ $gpu = 1 ] && [ "$np" -gt "$ngpu" ]; then echo "note: $np ranks share $ngpu GPU(s)"; fi
  for n in $grids; do
    for pc in $pcs; do
      pco=$(pc_options "$pc" "$np") || { echo "unknown preconditioner $pc (ilu, poly, iluhost, jacobi)"; exit 2; }
      for t in $types; do
        name=np$np-g$n-$pc-$t
        log=$out/runs/$name.log
        if [ "$pc" = iluhost ] && [ "$t" != aijcusparse ]; then continue; fi   # same as ilu
        if [ "$t" = aijcusparse ] && [ $gpu = 0 ]; then
          echo "skipped: no GPU" >"$log"; echo "$name: skipped (no GPU)"; continue
        fi
        if [ $force = 0 ] && [ -s "$log" ] && grep -q "^SNESSolve " "$log"; then echo "$name: done before, kept"; continue; fi
        # -device_view: which GPU each rank uses (only with a GPU: it initializes the device eagerly)
        dv=()
        [ $gpu = 1 ] && [ "$t" != aij ] && dv=(-device_view)
        cmd=("${launch[@]}" "$bin/ex19" -dll_append "$lib" -da_grid_x "$n" -da_grid_y "$n" -dm_mat_type "$t"
             $(type_options "$t") $pco "${common[@]}" -ksp_max_it "${maxit:-$((4 * n))}" "${dv[@]}"
             -log_view ":$log.view:ascii_info,:$out/runs/$name.flame.txt:ascii_flamegraph" -log_view_gpu_time
             -snes_view_solution "binary:$out/runs/$name.sol" "${extra[@]}")
        # flat profile to its own file first, then appended to the log: the program's output
        # and the profile in one file, the profile never interleaved with rank output
        rm -f "$out/runs/$name".{flame.txt,soldiff,sol,sol.info}   # nothing left from an earlier attempt
        printf '%q ' timeout "$limit" "${cmd[@]}" >>"$out/commands.txt"; echo >>"$out/commands.txt"
        start=$(date +%s)
        timeout "$limit" "${cmd[@]}" >"$log" 2>&1
        rc=$?
        [ -f "$log.view" ] && cat "$log.view" >>"$log" && rm -f "$log.view"
        [ $rc = 124 ] && echo "TIMEOUT after $limit s" >>"$log"
        [ $rc = 0 ] || { echo "exit status $rc" >>"$log"; status=1; }
        printf '%-34s rc %3s  %4s s  %s\n' "$name" "$rc" "$(($(date +%s) - start))" "$(grep -E 'Nonlinear solve|Linear solve' "$log" | awk '{print $NF}' | tr '\n' ' ')"
      done
    done
  done
done

if command -v python3 >/dev/null 2>&1; then
  python3 "$root/bench/ex19-study.py" parse "$out" || status=1
  [ $keep = 1 ] || rm -f "$out"/runs/*.sol "$out"/runs/*.sol.info
  echo "results: $out/results.md, $out/results.csv; chart: python3 bench/ex19-study.py plot $out/results.csv"
else
  echo "no python3 here: solutions kept; run 'python3 bench/ex19-study.py parse $out' where there is one"
fi
exit $status
