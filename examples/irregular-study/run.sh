#!/usr/bin/env bash
# Build irregular-study and run it on each PETSc binary matrix given (one run per file,
# 120 s limit each). Options (one-word arguments starting with -, e.g. --long-threshold=512)
# are passed to every run.
#
#   BUILD=build/bin examples/irregular-study/run.sh [options] FILE...
#
# BUILD: directory for the binary (default build/bin under the repository root).
set -eu

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${BUILD:-$root/build/bin}"

opts=()
files=()
for a in "$@"; do
  case "$a" in
    -*) opts+=("$a") ;;
    *) files+=("$a") ;;
  esac
done
if [ "${#files[@]}" -eq 0 ]; then
  echo "usage: BUILD=dir $0 [options] FILE..." >&2
  exit 2
fi

mkdir -p "$build"
nvcc -O3 -arch=sm_90 -o "$build/irregular-study" "$here/irregular-study.cu" -lcusparse

nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || true
status=0
for f in "${files[@]}"; do
  # A failing or timed-out matrix is reported and the others still run.
  timeout 120 "$build/irregular-study" ${opts[@]+"${opts[@]}"} "$f" || { rc=$?; echo "# $f: exit status $rc"; status=1; }
done
exit $status
