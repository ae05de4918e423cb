#!/usr/bin/env bash
# The GPU suite on a machine of several GPUs: its cases dealt out to the visible GPUs, one copy of
# tests/run.sh per GPU, in parallel (several copies on one GPU slow every case many times over).
#   tests/run-gpus.sh [-k pattern]      the cases tests/run.sh -k would run (PETSCSPMV_TEST_TYPES too)
#   CUDA_VISIBLE_DEVICES=2,3            only those GPUs
#   PETSCSPMV_TEST_DONE=file            leave out the cases an earlier output (its PASS lines) passed
# Each GPU's output goes to build/test-logs/gpus/gpu<N>.txt (PETSCSPMV_GPU_LOGS moves it); the last
# lines are every FAIL and "N passed, N failed" over all GPUs.
set -u
cd "$(dirname "$0")/.."
out=${PETSCSPMV_GPU_LOGS:-build/test-logs/gpus}
mkdir -p "$out"
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then IFS=, read -ra gpus <<<"$CUDA_VISIBLE_DEVICES"
else mapfile -t gpus < <(nvidia-smi --query-gpu=index --format=csv,noheader 2>/dev/null); fi
[ ${#gpus[@]} -gt 0 ] || { echo "no GPU visible (nvidia-smi): run tests/run.sh"; exit 1; }
mapfile -t cases < <(PETSCSPMV_TEST_LIST=1 tests/run.sh "$@" | sed -n 's/^CASE //p')
if [ -n "${PETSCSPMV_TEST_DONE:-}" ]; then
  mapfile -t cases < <(printf '%s\n' "${cases[@]}" | while IFS= read -r c; do
    grep -qF "PASS $c (" "$PETSCSPMV_TEST_DONE" || printf '%s\n' "$c"; done)
fi
[ ${#cases[@]} -gt 0 ] || { echo "no case to run"; exit 1; }
for ((g = 0; g < ${#gpus[@]}; g++)); do : >"$out/gpu${gpus[g]}.names"; done
for ((c = 0; c < ${#cases[@]}; c++)); do
  printf '%s\n' "${cases[c]}" >>"$out/gpu${gpus[c % ${#gpus[@]}]}.names"
done
echo "${#cases[@]} cases on GPUs ${gpus[*]} (output in $out/)"
for g in "${gpus[@]}"; do
  ( t0=$SECONDS
    CUDA_VISIBLE_DEVICES=$g PETSCSPMV_TEST_NAMES=$out/gpu$g.names tests/run.sh "$@" >"$out/gpu$g.txt" 2>&1
    echo "GPU $g: $(tail -1 "$out/gpu$g.txt") ($((SECONDS - t0)) s)" ) &
done
wait
pass=0 fail=0
for g in "${gpus[@]}"; do
  grep '^FAIL ' "$out/gpu$g.txt"
  last=$(tail -1 "$out/gpu$g.txt")
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    pass=$((pass + BASH_REMATCH[1])) fail=$((fail + BASH_REMATCH[2]))
  else
    echo "GPU $g did not finish (last line: $last)"; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
