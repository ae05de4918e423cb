#!/usr/bin/env bash
# bench/hostsamples.c and .py on a GAMG solve on the host: the program's result unchanged, one
# sample file pair for the program, and its tree under PCSetUp names PETSc's functions (the
# strength graph, the Galerkin product); without HOSTSAMPLES nothing is written.
#   tests/hostsamples-fixture.sh DIR BIN
set -u
dir=$1 bin=$2
cd "$(dirname "$0")/.."
rm -rf "$dir" && mkdir -p "$dir"
for tool in nm readelf; do command -v $tool >/dev/null || { echo "$tool missing (binutils): hostsamples.py names functions with it"; exit 1; }; done
ex45="$bin/ksp_ex45 -da_grid_x 24 -da_grid_y 24 -da_grid_z 24 -ksp_type cg -pc_type gamg -ksp_converged_reason"
plain=$($ex45) || { echo "the solve failed without the sampler"; exit 1; }
sampled=$(env HOSTSAMPLES="$dir/s" HOSTSAMPLES_US=100 LD_PRELOAD="$bin/hostsamples.so" $ex45) || { echo "the solve failed with the sampler"; exit 1; }
echo "$sampled"
[ "$(echo "$plain" | grep -o 'iterations [0-9]*')" = "$(echo "$sampled" | grep -o 'iterations [0-9]*')" ] || { echo "iterations changed: $plain / $sampled"; exit 1; }
best= bestn=0
for raw in "$dir"/s.*.raw; do # the MPI singleton's helper processes write theirs too: the solver's has PCSetUp
  out=$(python3 bench/hostsamples.py "${raw%.raw}" --root PCSetUp --min 0.02 --depth 6 --flat 5) || { echo "hostsamples.py failed on $raw"; exit 1; }
  n=$(echo "$out" | sed -n '1s/^[0-9]* samples, \([0-9]*\) with.*/\1/p')
  [ "${n:-0}" -gt "$bestn" ] && best=$out bestn=$n
done
echo "$best"
[ "$bestn" -ge 20 ] || { echo "fewer than 20 samples under PCSetUp"; exit 1; }
for f in PCGAMGCreateGraph MatCreateGraph MatPtAP; do echo "$best" | grep -q " $f\$" || { echo "the tree names no $f"; exit 1; }; done
echo "$best" | tail -n +2 | grep -q " take$\| hostsamples.so$" && { echo "the sampler's own frames are in the tree"; exit 1; }
rm -f "$dir"/s.*
env LD_PRELOAD="$bin/hostsamples.so" $ex45 >/dev/null || { echo "the solve failed with the sampler loaded but off"; exit 1; }
[ -z "$(ls "$dir")" ] || { echo "files written without HOSTSAMPLES: $(ls "$dir")"; exit 1; }
echo "ok: $bestn samples under PCSetUp, PETSc's functions named"
