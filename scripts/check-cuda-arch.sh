#!/usr/bin/env bash
# The library holds machine code for every CUDA architecture it was built for (the makefile's
# PETSCSPMV_CUDA_ARCH: PETSc's list unless set) and PTX of the newest, in each of its CUDA objects.
#   scripts/check-cuda-arch.sh [library]
# Needs cuobjdump: the CUDA toolkit's, or PyPI's nvidia-cuda-cuobjdump (CUOBJDUMP=/path/to/cuobjdump).
set -euo pipefail
cd "$(dirname "$0")/.."
lib=${1:-lib/libpetscspmv.so}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null || true)}
[ -n "$cuobjdump" ] || { echo "no cuobjdump (set CUOBJDUMP)"; exit 2; }
. scripts/petsc-env.sh >/dev/null
archs=$(make -s --no-print-directory print-cuda-arch 2>/dev/null || true)
if [ -z "$archs" ]; then # the makefile's reading of PETSc's list, for a copied PETSc whose rules do not load
  archs=$(echo "${PETSCSPMV_CUDA_ARCH:-$(sed -n 's/^CUDAC_FLAGS *=//p' "$PETSC_DIR/lib/petsc/conf/petscvariables" | grep -o 'arch=compute_[0-9]*' | sed 's/arch=compute_//')}" |
    tr ', ' '\n\n' | sed 's/[^0-9]//g' | { grep -E '^[0-9]+$' || true; } | sort -un | xargs)
fi
[ -n "$archs" ] || { echo "PETSc's CUDA flags name no architecture list (-arch=native or all): nothing to check"; exit 0; }
objects=$(find src -name '*.cu' | wc -l)
newest=$(printf '%s\n' $archs | sort -n | tail -1)
elf=$("$cuobjdump" --list-elf "$lib")
ptx=$("$cuobjdump" --list-ptx "$lib")
bad=0
for a in $archs; do
  n=$(grep -c "\.sm_$a\.cubin" <<<"$elf" || true)
  echo "sm_$a machine code: $n of $objects objects"
  [ "$n" = "$objects" ] || bad=1
done
n=$(grep -c "\.sm_$newest\.ptx" <<<"$ptx" || true)
echo "compute_$newest PTX: $n of $objects objects"
[ "$n" = "$objects" ] || bad=1
[ $bad = 0 ]
