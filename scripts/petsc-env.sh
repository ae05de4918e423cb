# Sourced by the other scripts: where PETSc lives, and how programs find their libraries.
# A user's own PETSC_DIR (and PETSC_ARCH) always wins; otherwise the cached build is used.
PETSC_VERSION=${PETSC_VERSION:-3.25.4}
PETSCSPMV_CACHE=${PETSCSPMV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petscspmv}
# PETSCSPMV_VARIANT=complex, single or int64 (64-bit PetscInt) selects another PETSc build (default: real double, 32-bit PetscInt)
PETSCSPMV_VARIANT=${PETSCSPMV_VARIANT:-real}
PETSCSPMV_PETSC_PREFIX=$PETSCSPMV_CACHE/petsc-$PETSC_VERSION-cuda-sm90$([ "$PETSCSPMV_VARIANT" = real ] || echo "-$PETSCSPMV_VARIANT")
if [ -z "${PETSC_DIR:-}" ] || [ "$PETSC_DIR" = "$PETSCSPMV_PETSC_PREFIX" ]; then
  PETSC_DIR=$PETSCSPMV_PETSC_PREFIX
  PETSC_ARCH=
  PETSCSPMV_OWN_PETSC=1
fi
export PETSC_DIR PETSC_ARCH
# Machines without an NVIDIA driver (CI) still have to load a CUDA-enabled libpetsc:
# the toolkit's stub libcuda and our NVML stub satisfy the loader, every CUDA call then
# reports "no device" and the formats fall back to their host reference kernels.
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
  if [ -d "$PETSCSPMV_CACHE/nodriver" ]; then
    export LD_LIBRARY_PATH=$PETSCSPMV_CACHE/nodriver${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  fi
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
