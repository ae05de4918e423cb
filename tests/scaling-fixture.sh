#!/usr/bin/env bash
# bench/scaling-report.py on runs of its own: each count's times are the medians of its runs (one run
# that stopped left out), iterations that differ show as a range, PCSetUp against the fewest GPUs'
# and against aijcusparse's, and a table --flame prints after solves.sh's is not read.   tests/scaling-fixture.sh DIR
set -u
dir=$1
cd "$(dirname "$0")/.."
rm -rf "$dir" && mkdir -p "$dir/strong"
head='case       type             iters SNESSolve  KSPSolve   PCSetUp   PCApply  MatSolve   MatMult   convert    upload   scatter  KSP H2D/D2H'
row() { # type iters KSPSolve PCSetUp
  printf 'ex45gamg@160 %-12s %4s - %s %s 1e-2 1e-4 5e-2 - 0.1 0 15/14\n' "$@"
}
{ echo "$head"; row aijcusparse 8 6.0e-02 6.4; row brc 8 6.0e-02 0.60; echo; echo "part  aij  brc"; echo "MatCoarsen x y z a b c d e f g h i j"; } >"$dir/strong/np1.txt"
{ echo "$head"; row aijcusparse 8 7.0e-02 6.5; row brc 9 6.4e-02 0.54; } >"$dir/strong/np1-r2.txt"
{ echo "$head"; row aijcusparse 8 8.0e-02 6.6; row brc 8 6.8e-02 0.65; } >"$dir/strong/np1-r3.txt"
{ echo "$head"; row aijcusparse 8 7.7e-02 4.87; row brc 8 7.2e-02 1.45; echo "  (ex45gamg@160 brc: exit 124, see it.log)"
  echo "ex45gamg@160 brc             0         -         -         -         -         -         -         -         -         -            -"; } >"$dir/strong/np4.txt"
out=$(python3 bench/scaling-report.py "$dir") || exit 1
echo "$out"
expect() { echo "$out" | grep -qF -- "$1" || { echo "missing: $1"; exit 1; }; }
expect "| 1 | ex45gamg@160 | aijcusparse | 3 | 8 | 7.0000e-02 | 6.5000e+00 |"
expect "| 1 | ex45gamg@160 | brc | 3 | 8-9 | 6.4000e-02 | 6.0000e-01 |"
expect "| 4 | ex45gamg@160 | brc | 1 | 8 | 7.2000e-02 | 1.4500e+00 |"
expect "| 0.75x | - |" # 4 GPUs, aijcusparse: 4.87 / 6.5, its own one-GPU set-up (the median of three)
expect "| 2.42x | 0.30x |" # brc: 1.45 / 0.60, and 1.45 / 4.87 against aijcusparse's
grep -q "^strong,ex45gamg@160,ex45gamg@160,brc,1,3,8-9," "$dir/scaling.csv" || { echo "scaling.csv lacks the merged row"; exit 1; }
