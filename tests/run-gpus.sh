#!/usr/bin/env bash
# The GPU suite on a machine of several GPUs: one copy of tests/run.sh per visible GPU, in parallel,
# each taking the next case no other copy has taken (several copies on one GPU slow every case many
# times over, unless NVIDIA's MPS daemon runs: then PETSCSPMV_TEST_PER_GPU=2 runs two on each).
#   tests/run-gpus.sh [run.sh's arguments]  the cases tests/run.sh would run with them (ids, -k, -t; PETSCSPMV_TEST_TYPES too)
#   CUDA_VISIBLE_DEVICES=2,3            only those GPUs
#   PETSCSPMV_TEST_PER_GPU=2            copies of tests/run.sh on each GPU (default 1)
#   PETSCSPMV_TEST_DONE=file            leave out the cases an earlier output (its PASS lines) passed
#   PETSCSPMV_TEST_TIMES=f1:f2          run the cases that took longest in those earlier outputs first
# Each copy's output goes to build/test-logs/gpus/gpu<N>.txt, gpu<N>-<k>.txt for the k-th copy beyond
# the first (PETSCSPMV_GPU_LOGS moves it); the last lines are every FAIL and "N passed, N failed"
# over all copies.
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
    grep -qF "PASS $c  " "$PETSCSPMV_TEST_DONE" || printf '%s\n' "$c"; done)
fi
[ ${#cases[@]} -gt 0 ] || { echo "no case to run"; exit 1; }
if [ -n "${PETSCSPMV_TEST_TIMES:-}" ]; then # the longest first (times of earlier outputs; unknown: 30 s): no long case left for the end
  mapfile -t cases < <(printf '%s\n' "${cases[@]}" | awk -v times="$PETSCSPMV_TEST_TIMES" '
    BEGIN { n = split(times, f, ":"); for (k = 1; k <= n; k++) while ((getline l < f[k]) > 0)
              if (l ~ /^(PASS|FAIL) / && match(l, /\([0-9]+ s[,)]/)) { split(l, w, " "); t[w[2]] = substr(l, RSTART + 1, RLENGTH - 4) + 0 } }
    { printf "%d\t%d\t%s\n", ($0 in t) ? t[$0] : 30, NR, $0 }' | sort -t$'\t' -k1,1nr -k2,2n | cut -f3-)
fi
per_gpu=${PETSCSPMV_TEST_PER_GPU:-1}
[[ $per_gpu =~ ^[1-9][0-9]*$ ]] || { echo "PETSCSPMV_TEST_PER_GPU=$per_gpu: give a whole number from 1"; exit 1; }
copies=() copy_gpu=()
for ((k = 1; k <= per_gpu; k++)); do
  for g in "${gpus[@]}"; do
    copies+=("gpu$g$([ $k -gt 1 ] && echo "-$k")") copy_gpu+=("$g")
  done
done
# every copy walks the same list and runs the cases it claims first: the copies end together
printf '%s\n' "${cases[@]}" >"$out/cases.ids"
claims=$out/claims
rm -rf "$claims" && mkdir -p "$claims"
echo "${#cases[@]} cases on GPUs ${gpus[*]}, $per_gpu cop$([ "$per_gpu" = 1 ] && echo y || echo ies) each (output in $out/)"
for ((w = 0; w < ${#copies[@]}; w++)); do
  ( t0=$SECONDS name=${copies[w]}
    CUDA_VISIBLE_DEVICES=${copy_gpu[w]} PETSCSPMV_TEST_IDS=$out/cases.ids PETSCSPMV_TEST_CLAIMS=$claims tests/run.sh "$@" >"$out/$name.txt" 2>&1
    echo "$name: $(tail -1 "$out/$name.txt") ($((SECONDS - t0)) s)" ) &
done
wait
pass=0 fail=0
for w in "${copies[@]}"; do
  grep '^FAIL ' "$out/$w.txt"
  last=$(tail -1 "$out/$w.txt")
  if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    pass=$((pass + BASH_REMATCH[1])) fail=$((fail + BASH_REMATCH[2]))
  else
    echo "$w did not finish (last line: $last)"; fail=$((fail + 1))
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
