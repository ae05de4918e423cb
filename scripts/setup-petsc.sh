#!/usr/bin/env bash
# Builds PETSc (pinned release, from the `petsc` sdist on PyPI) with CUDA for the GPUs present (sm_80
# and sm_90 where none is visible; PETSCSPMV_CUDA_ARCH="80 86 89 90 100" for others),
# Debian's Open MPI and BLAS/LAPACK, shared libraries, no debugging, no Fortran, into a
# cache outside the repository. Reused when present; does nothing if PETSC_DIR is set.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/petsc-env.sh"

if [ -z "${PETSCSPMV_OWN_PETSC:-}" ]; then
  echo "setup-petsc: using your PETSC_DIR=$PETSC_DIR PETSC_ARCH=${PETSC_ARCH:-} (nothing built)"
  exit 0
fi
if [ -f "$PETSC_DIR/lib/petsc/conf/petscvariables" ] && [ -d "$PETSCSPMV_CACHE/nodriver" ]; then
  echo "setup-petsc: reusing PETSc $PETSC_VERSION in $PETSC_DIR"
  exit 0
fi

echo "setup-petsc: building PETSc $PETSC_VERSION (variant $PETSCSPMV_VARIANT) into $PETSC_DIR"
echo "setup-petsc: the first build takes 10 to 25 minutes on 2 cores; later runs reuse it."
start=$(date +%s)
mkdir -p "$PETSCSPMV_CACHE"
cd "$PETSCSPMV_CACHE"

# System packages: Open MPI and reference BLAS/LAPACK from Debian.
need=()
command -v mpicc >/dev/null || need+=(libopenmpi-dev openmpi-bin)
[ -e /usr/lib/x86_64-linux-gnu/liblapack.so ] || need+=(liblapack-dev libblas-dev)
if [ ${#need[@]} -gt 0 ]; then
  echo "setup-petsc: installing ${need[*]} (apt)"
  SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${need[@]}"
fi
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
CUDA_HOME=${CUDA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")}

# Sources from PyPI: PETSc's sdist and NVIDIA's NVML header wheel.
mkdir -p dl
[ -f "dl/petsc-$PETSC_VERSION.tar.gz" ] || python3 -m pip download -q --no-deps --no-binary :all: "petsc==$PETSC_VERSION" -d dl
[ -n "$(ls dl/nvidia_nvml_dev-*.whl 2>/dev/null)" ] || python3 -m pip download -q --no-deps --only-binary :all: "nvidia-nvml-dev==13.0.87" -d dl

# PETSc's CUDA configure wants nvml.h and lib64/stubs/libnvidia-ml.so inside the CUDA
# directory. We give it an overlay of the toolkit (symlinks) plus those two files; the
# stub library only satisfies the linker, the driver's libnvidia-ml.so.1 is used at run time.
ov=$PETSCSPMV_CACHE/cuda-overlay
rm -rf "$ov"; mkdir -p "$ov/include" "$ov/lib64/stubs"
ln -s "$CUDA_HOME/bin" "$ov/bin"
[ -d "$CUDA_HOME/nvvm" ] && ln -s "$CUDA_HOME/nvvm" "$ov/nvvm"
for f in "$CUDA_HOME"/include/*; do ln -s "$f" "$ov/include/"; done
for f in "$CUDA_HOME"/lib64/*; do [ "$(basename "$f")" = stubs ] || ln -s "$f" "$ov/lib64/"; done
for f in "$CUDA_HOME"/lib64/stubs/*; do ln -s "$f" "$ov/lib64/stubs/"; done
python3 - "$ov/include" dl/nvidia_nvml_dev-*.whl <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[2]) as z:
    name = next(n for n in z.namelist() if n.endswith('/nvml.h'))
    open(sys.argv[1] + '/nvml.h', 'wb').write(z.read(name))
PY
cat > "$ov/nvml_stub.c" <<'C'
/* Link-time stand-in for the driver's NVML: never used at run time on a GPU machine. */
#include <nvml.h>
nvmlReturn_t nvmlInit_v2(void) { return NVML_ERROR_DRIVER_NOT_LOADED; }
nvmlReturn_t nvmlShutdown(void) { return NVML_ERROR_UNINITIALIZED; }
const char *nvmlErrorString(nvmlReturn_t r) { (void)r; return "NVML stub: no NVIDIA driver"; }
nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d) { (void)i; (void)d; return NVML_ERROR_UNINITIALIZED; }
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t d, int n, nvmlFieldValue_t *v) { (void)d; (void)n; (void)v; return NVML_ERROR_UNINITIALIZED; }
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t d, unsigned long long *e) { (void)d; (void)e; return NVML_ERROR_UNINITIALIZED; }
C
gcc -shared -fPIC -O2 -I"$ov/include" -Wl,-soname,libnvidia-ml.so.1 -o "$ov/lib64/stubs/libnvidia-ml.so" "$ov/nvml_stub.c"

# Loader stand-ins for machines with no driver at all (see petsc-env.sh).
mkdir -p "$PETSCSPMV_CACHE/nodriver"
cp "$CUDA_HOME/lib64/stubs/libcuda.so" "$PETSCSPMV_CACHE/nodriver/libcuda.so.1"
cp "$ov/lib64/stubs/libnvidia-ml.so" "$PETSCSPMV_CACHE/nodriver/libnvidia-ml.so.1"

case "$PETSCSPMV_VARIANT" in
real) scalar=();;
complex) scalar=(--with-scalar-type=complex);;
single) scalar=(--with-precision=single);;
int64) scalar=(--with-64-bit-indices);;
*) echo "PETSCSPMV_VARIANT must be real, complex, single or int64"; exit 1;;
esac
# PETSc's --with-cuda-arch gives machine code only; PTX of the newest architecture as well lets a
# newer GPU (and CUDA_FORCE_PTX_JIT=1) compile PETSc's kernels at load time, as it does ours.
newest=${PETSCSPMV_PETSC_CUDA_ARCH##*,}
src=$PETSCSPMV_CACHE/petsc-$PETSC_VERSION
[ -d "$src" ] || tar xzf "dl/petsc-$PETSC_VERSION.tar.gz"
cd "$src"
export PETSC_DIR=$src PETSC_ARCH=arch-petscspmv-$PETSCSPMV_VARIANT
log=$PETSCSPMV_CACHE/petsc-build-$PETSCSPMV_VARIANT.log
echo "setup-petsc: configure (log: $log)"
python3 ./configure PETSC_ARCH=$PETSC_ARCH --prefix="$PETSCSPMV_PETSC_PREFIX" \
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=0 \
  --with-cuda=1 --with-cuda-dir="$ov" --with-cuda-arch="$PETSCSPMV_PETSC_CUDA_ARCH" \
  --with-blaslapack-lib="-llapack -lblas" \
  --with-debugging=0 --with-shared-libraries=1 --with-x=0 "${scalar[@]}" \
  CUDAFLAGS="-gencode arch=compute_$newest,code=compute_$newest" \
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2 >"$log" 2>&1 || { tail -30 "$log"; exit 1; }
echo "setup-petsc: compiling PETSc (the long part)"
make -j"$(nproc)" PETSC_DIR=$src PETSC_ARCH=$PETSC_ARCH all 2>&1 | tee -a "$log" | grep --line-buffered -E "^ +(CC|CXX|CUDAC) " | awk '{n++; if (n%100==0) {print "setup-petsc: ... " n " files compiled"; fflush()}}'
[ "${PIPESTATUS[0]}" = 0 ] || { tail -30 "$log"; exit 1; }
make PETSC_DIR=$src PETSC_ARCH=$PETSC_ARCH install >>"$log" 2>&1 || { tail -30 "$log"; exit 1; }
echo "setup-petsc: done in $(( ($(date +%s) - start) / 60 )) min: PETSC_DIR=$PETSCSPMV_PETSC_PREFIX"
