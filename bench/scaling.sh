#!/usr/bin/env bash
# Strong and weak scaling over GPUs, our types next to aijcusparse in the same allocation: each case
# of bench/solves.sh run on 1, 2, 4, ... ranks, one rank per GPU (PETSc's default device of a rank
# is its rank modulo the visible GPUs; -device_view in each log says which GPU a rank took).
#
#   bench/scaling.sh [-t "aijcusparse brc spmv"] [-g "1 2"] [-s "ex19ilu@512 ex45gamg"]
#                    [-w "ex19ilu@512 ex45gamg@160"] [-r 3] [-o DIR] [--timeout S] [--shared] [--untimed] [--flame]
#
#   -g  GPU counts (default: 1 and then doubling up to the GPUs nvidia-smi lists)
#   -s  strong-scaling cases: the same problem on every count (solves.sh's case names; @N sizes)
#   -w  weak-scaling cases, given at their one-GPU size: on g GPUs the grid side (or -ne) becomes
#       N * g^(1/d), d = 2 for ex19 and ex2, 3 for ex45 and ex56 (the same unknowns per GPU)
#   KSP ex56 cases run only on cube numbers of ranks (1, 8, 27): ex56 refuses others, and on 2 it puts
#   every row on the first rank; their -ne is raised until ne + 1 splits among k^3 ranks (49 for 48
#   on 8)
#   --shared  run counts above the GPUs present anyway (ranks then share GPUs: the code paths, not
#       the scaling); without it such counts are skipped
#   -r  runs of each count (default 1): the tables give each figure's median over the runs (multigrid
#       set-ups move 15% between runs), the iterations' range where they differ
#   --flame  each run's nested timings too (bench/solves.sh --flame): GAMG's set-up part by part
#   --untimed  without GPU timers (bench/solves.sh --untimed): KSPSolve as a user's run takes it, the
#       ghost stream's overlap included; MatMult, MatSolve and the exchange then print "-"
#
# Output: DIR/<strong|weak>/np<g>/ (solves.sh's logs and table; run k > 1 in np<g>-r<k>/) and
# DIR/scaling.txt, a table per case of KSPSolve, PCSetUp, MatMult and the ghost exchange (VecScatter)
# per count and type, with the speed-up and parallel efficiency of KSPSolve (strong: T1 / (g Tg); weak:
# T1 / Tg), PCSetUp against the fewest GPUs' and the ratios to aijcusparse at the same count.
# DIR/scaling.csv has the same for `bench/scaling-report.py plot DIR`.
set -u
cd "$(dirname "$0")/.."
types="aijcusparse brc spmv" strong="ex19ilu@512 ex45gamg" weak="ex19ilu@512 ex45gamg@160"
out=${OUT:+$OUT/scaling} limit=400 shared=0 counts= untimed= flame= runs=1
out=${out:-results/scaling}
while [ $# -gt 0 ]; do
  case $1 in
  -t) types=$2; shift 2 ;;
  -g) counts=$2; shift 2 ;;
  -s) strong=$2; shift 2 ;;
  -w) weak=$2; shift 2 ;;
  -r) runs=$2; shift 2 ;;
  -o) out=$2; shift 2 ;;
  --timeout) limit=$2; shift 2 ;;
  --shared) shared=1; shift ;;
  --untimed) untimed=--untimed; shift ;;
  --flame) flame=--flame; shift ;;
  -h|--help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "unknown argument $1"; exit 2 ;;
  esac
done
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "-r $runs: give a whole number from 1"; exit 2; }
gpus=$(nvidia-smi -L 2>/dev/null | grep -c GPU)
if [ -z "$counts" ]; then
  counts=1
  for ((g = 2; g <= gpus; g *= 2)); do counts="$counts $g"; done
fi
mkdir -p "$out"
{ nvidia-smi -L 2>/dev/null || echo "no GPU"; date -u; git rev-parse --short HEAD 2>/dev/null; } >"$out/env.txt"

weaksize() { # case@N g -> the case at g times the unknowns
  local c=${1%@*} n=${1#*@} d=2
  case $c in ex45* | ex56*) d=3 ;; esac
  echo "$c@$(awk -v n="$n" -v g="$2" -v d="$d" 'BEGIN { printf "%d", n * g ^ (1 / d) + 0.5 }')"
}
cuberoot() { # g -> its integer cube root, or 0
  awk -v g="$1" 'BEGIN { r = int(g ^ (1 / 3) + 0.5); print (r * r * r == g) ? r : 0 }'
}
ex56fit() { # case[@N] k -> the case with -ne raised until k divides ne + 1, as KSP ex56 on k^3 processes needs
  local c=${1%@*} n=${1#*@}
  if [ "$n" = "$1" ]; then case $c in ex56icc*) n=47 ;; *) n=48 ;; esac; fi
  echo "$c@$(((n + 1 + $2 - 1) / $2 * $2 - 1))"
}
# strong scaling solves one problem: ex56's -ne fits every cube count at once
lcm=1
for g in $counts; do
  r=$(cuberoot "$g")
  [ "$r" -gt 1 ] && lcm=$(awk -v a="$lcm" -v b="$r" 'function gcd(x, y) { return y ? gcd(y, x % y) : x } BEGIN { print a * b / gcd(a, b) }')
done
fitted=
for c in $strong; do
  case $c in ex56*) c=$(ex56fit "$c" "$lcm") ;; esac
  fitted="$fitted $c"
done
strong=$fitted
for g in $counts; do
  if [ "$g" -gt "$gpus" ] && [ $shared = 0 ]; then
    echo "skipped $g ranks: $gpus GPU(s) here (--shared runs them anyway)"
    continue
  fi
  k=$(cuberoot "$g") # 0: not a cube
  for kind in strong weak; do
    list=$strong
    [ $kind = weak ] && list=$weak
    [ -n "$list" ] || continue
    cs=
    for c in $list; do
      case $c in ex56*) # KSP ex56 splits its cube among a cube number of processes (2: all on the first)
        if [ "$k" = 0 ]; then
          echo "skipped $c on $g rank(s): KSP ex56 needs a cube number of processes"
          continue
        fi ;;
      esac
      if [ $kind = weak ]; then
        case $c in *@*) ;; *) echo "weak case $c needs its one-GPU size (case@N)"; exit 2 ;; esac
        c=$(weaksize "$c" "$g")
        case $c in ex56*) c=$(ex56fit "$c" "$k") ;; esac
        cs="$cs $c"
      else cs="$cs $c"; fi
    done
    [ -n "$cs" ] || continue
    for ((r = 1; r <= runs; r++)); do
      run=np$g$([ $r -gt 1 ] && echo "-r$r")
      echo "== $kind, $g rank(s), run $r of $runs:$cs"
      mkdir -p "$out/$kind/$run"
      # -device_view: each rank's GPU, in the log
      PETSC_OPTIONS="${PETSC_OPTIONS:-} -device_view" bench/solves.sh -t "$types" -c "$cs" -n "$g" \
        -o "$out/$kind/$run" --timeout "$limit" $untimed $flame | tee "$out/$kind/$run.txt"
    done
  done
done
python3 bench/scaling-report.py "$out" | tee "$out/scaling.txt"
