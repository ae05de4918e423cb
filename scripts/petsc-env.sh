# Sourced by the other scripts: where PETSc lives, and how programs find their libraries.
# A user's own PETSC_DIR (and PETSC_ARCH) always wins; otherwise the cached build is used.
PETSC_VERSION=${PETSC_VERSION:-3.26.1}
PETSCSPMV_CACHE=${PETSCSPMV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/petscspmv}
# PETSCSPMV_VARIANT=complex, single or int64 (64-bit PetscInt) selects another PETSc build (default: real double, 32-bit PetscInt)
PETSCSPMV_VARIANT=${PETSCSPMV_VARIANT:-real}
# The CUDA architectures of a PETSc we build (and of our kernels, the makefile reading PETSc's):
# PETSCSPMV_CUDA_ARCH ("80 86 89 90 100" or "80,90"), else those of the GPUs nvidia-smi lists,
# else 80 and 90 (a build made where no GPU is visible, a login node, runs on every GPU from sm_80:
# sm_80 machine code also runs on sm_86 and sm_89, and PTX of sm_90, built with it, is compiled at
# load time by newer GPUs). Each list has its own cached build.
PETSCSPMV_PETSC_CUDA_ARCH=${PETSCSPMV_CUDA_ARCH:-}
if [ -z "${PETSCSPMV_PETSC_CUDA_ARCH// /}" ] && command -v nvidia-smi >/dev/null 2>&1; then
  PETSCSPMV_PETSC_CUDA_ARCH=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | tr -d '. ' | grep -E '^[0-9]+$' || true)
fi
PETSCSPMV_PETSC_CUDA_ARCH=$(echo "${PETSCSPMV_PETSC_CUDA_ARCH:-80 90}" | tr ', ' '\n\n' | sed 's/[^0-9]//g' | { grep -E '^[0-9]+$' || true; } | sort -un | paste -sd, -)
PETSCSPMV_PETSC_CUDA_ARCH=${PETSCSPMV_PETSC_CUDA_ARCH:-80,90}
PETSCSPMV_PETSC_PREFIX=$PETSCSPMV_CACHE/petsc-$PETSC_VERSION-cuda-sm$(echo "$PETSCSPMV_PETSC_CUDA_ARCH" | tr , -)$([ "$PETSCSPMV_VARIANT" = real ] || echo "-$PETSCSPMV_VARIANT")
if [ -z "${PETSC_DIR:-}" ] || [ "$PETSC_DIR" = "$PETSCSPMV_PETSC_PREFIX" ]; then
  PETSC_DIR=$PETSCSPMV_PETSC_PREFIX
  PETSC_ARCH=
  PETSCSPMV_OWN_PETSC=1
fi
export PETSC_DIR PETSC_ARCH
# Machines without an NVIDIA driver (CI) still have to load a CUDA-enabled libpetsc:
# the toolkit's stub libcuda and our NVML stub satisfy the loader, every CUDA call then
# reports "no device" and the formats fall back to their host reference kernels.
# The driver counts as present when the loader's cache lists libcuda.so.1 (ldconfig is in /sbin,
# off a non-root user's PATH), /dev/nvidiactl exists or nvidia-smi -L lists a GPU. Only without
# one are the stubs added, last: the loader searches LD_LIBRARY_PATH before its cache, so a stub
# there would shadow the driver (every CUDA call failing on a GPU machine); appended, a driver in
# an earlier LD_LIBRARY_PATH directory (containers) still wins. (Plain greps, not grep -q: with
# pipefail an early exit makes the pipe fail.)
petscspmv_driver=0
petscspmv_seen=
for petscspmv_ldc in "$(command -v ldconfig 2>/dev/null)" /sbin/ldconfig /usr/sbin/ldconfig; do
  [ -x "$petscspmv_ldc" ] || continue
  petscspmv_real=$(readlink -f "$petscspmv_ldc")
  case " $petscspmv_seen " in *" $petscspmv_real "*) continue ;; esac # the same program: asked once
  petscspmv_seen="$petscspmv_seen $petscspmv_real"
  if "$petscspmv_ldc" -p 2>/dev/null | grep 'libcuda\.so\.1 ' >/dev/null; then petscspmv_driver=1; break; fi
done
if [ -e /dev/nvidiactl ] || { command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep GPU >/dev/null; }; then petscspmv_driver=1; fi
if [ $petscspmv_driver = 0 ] && [ -d "$PETSCSPMV_CACHE/nodriver" ]; then
  case ":${LD_LIBRARY_PATH:-}:" in
  *":$PETSCSPMV_CACHE/nodriver:"*) ;;
  *) export LD_LIBRARY_PATH=${LD_LIBRARY_PATH:+$LD_LIBRARY_PATH:}$PETSCSPMV_CACHE/nodriver ;;
  esac
fi
unset petscspmv_driver petscspmv_ldc petscspmv_seen petscspmv_real
# The MPI launcher: $MPIEXEC when set, else the one PETSc was configured with (MPIEXEC in
# petscvariables, used only if it runs here: a bundle's may name the build machine's), else
# mpiexec. Scripts run N ranks with $PETSCSPMV_MPIEXEC_N N prog ..., which is the launcher with
# -n, and with --oversubscribe (more ranks than cores) only where the launcher is Open MPI's:
# MPICH's and srun reject it.
if [ -n "${MPIEXEC:-}" ]; then
  PETSCSPMV_MPIEXEC=$MPIEXEC
else
  PETSCSPMV_MPIEXEC=
  petscspmv_vars=$PETSC_DIR/${PETSC_ARCH:-}/lib/petsc/conf/petscvariables
  if [ -f "$petscspmv_vars" ]; then
    PETSCSPMV_MPIEXEC=$(sed -n 's/^MPIEXEC *= *//p' "$petscspmv_vars" | head -1 | sed 's/ *$//; s|[$][{(]PETSC_DIR[})]|'"$PETSC_DIR"'|g')
  fi
  if [ -z "$PETSCSPMV_MPIEXEC" ] || ! command -v "${PETSCSPMV_MPIEXEC%% *}" >/dev/null 2>&1; then PETSCSPMV_MPIEXEC=mpiexec; fi
  unset petscspmv_vars
fi
PETSCSPMV_MPIEXEC_N="$PETSCSPMV_MPIEXEC -n"
case " $PETSCSPMV_MPIEXEC " in
*" --oversubscribe "*) ;;
*) if timeout 20 $PETSCSPMV_MPIEXEC --version </dev/null 2>&1 | grep -E 'Open MPI|OpenRTE' >/dev/null; then
     PETSCSPMV_MPIEXEC_N="$PETSCSPMV_MPIEXEC --oversubscribe -n"
   fi ;;
esac
export PETSCSPMV_MPIEXEC PETSCSPMV_MPIEXEC_N
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# The virtual environment of petsc4py (and slepc4py) built against this PETSc (scripts/setup-python.sh)
petscspmv_python_venv() {
  # one per cached PETSc build (version, CUDA architectures, variant): petsc4py links the one it was built against;
  # PETSCSPMV_PYTHON_VENV names another (scripts/gpu-bundle.sh python: one for the GPU machine's Python)
  if [ -n "${PETSCSPMV_PYTHON_VENV:-}" ]; then echo "$PETSCSPMV_PYTHON_VENV"
  elif [ -n "${PETSCSPMV_OWN_PETSC:-}" ]; then echo "$PETSCSPMV_CACHE/python-${PETSCSPMV_PETSC_PREFIX##*/petsc-}"
  else echo "$PETSCSPMV_CACHE/python-$(printf '%s' "$PETSC_DIR/${PETSC_ARCH:-}" | cksum | cut -d' ' -f1)"; fi
}
