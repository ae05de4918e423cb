#!/usr/bin/env bash
# Runs petscspmv on a GPU machine that has the CUDA runtime and Open MPI but no PETSc.
#
#   scripts/gpu-bundle.sh pack            (here) PETSc's include+lib (stripped), the BLAS/LAPACK it
#                                         links, lib/ and build/bin/ -> .bundle/petscspmv-gpu-real.tar.xz
#                                         (PETSCSPMV_VARIANT=complex|single: that build instead;
#                                         PETSCSPMV_BUNDLE=path: another name, e.g. one per PETSc version)
#   scripts/gpu-bundle.sh run CMD...      (there, in a copy of this tree holding .bundle/) unpack
#                                         once, point the loader at it, run CMD (e.g. tests/run.sh)
# The bundle is relocatable: programs find its libraries through LD_LIBRARY_PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scalar=${PETSCSPMV_VARIANT:-real}
if [ "$scalar" = real ]; then builddir=build libdir=lib; else builddir=build/$scalar libdir=build/$scalar/lib; fi
bundle=${PETSCSPMV_BUNDLE:-.bundle/petscspmv-gpu-$scalar.tar.xz}

case "${1:-}" in
pack)
  . scripts/petsc-env.sh
  [ -f $libdir/libpetscspmv.so ] || { echo "build first: make PETSCSPMV_VARIANT=$scalar"; exit 1; }
  stage=$(mktemp -d)
  mkdir -p "$stage/petsc/lib" "$stage/deps"
  cp -a "$PETSC_DIR/include" "$stage/petsc/"
  cp -a "$PETSC_DIR"/lib/libpetsc.so* "$stage/petsc/lib/"
  mkdir -p "$stage/petsc/lib/petsc" && cp -a "$PETSC_DIR/lib/petsc/conf" "$stage/petsc/lib/petsc/"
  strip --strip-unneeded "$stage"/petsc/lib/libpetsc.so.*.*.*
  for l in liblapack.so.3 libblas.so.3 libgfortran.so.5 libquadmath.so.0; do
    cp -L "/lib/x86_64-linux-gnu/$l" "$stage/deps/"
  done
  mkdir -p "$stage/tree/lib" "$stage/tree/bin"
  cp -a $libdir/. "$stage/tree/lib/"
  cp -a $builddir/bin/. "$stage/tree/bin/"
  mkdir -p "$(dirname "$bundle")"
  tar -C "$stage" -cJf "$bundle" petsc deps tree
  rm -rf "$stage"
  size=$(stat -c %s "$bundle")
  echo "bundle: $bundle, $((size / 1024 / 1024)) MiB"
  [ "$size" -lt $((64 * 1024 * 1024)) ] || { echo "bundle over 64 MiB"; exit 1; }
  ;;
run)
  shift
  dest=${PETSCSPMV_BUNDLE_DIR:-/tmp/petscspmv-bundle}-$(basename "$bundle" .tar.xz)
  if [ ! -d "$dest/petsc" ]; then
    mkdir -p "$dest"
    tar -C "$dest" -xJf "$bundle"
  fi
  # the tree's own build outputs come from the bundle
  mkdir -p $libdir $builddir/bin
  cp -a "$dest/tree/lib/." $libdir/
  cp -a "$dest/tree/bin/." $builddir/bin/
  export PETSC_DIR=$dest/petsc PETSC_ARCH=
  export LD_LIBRARY_PATH=$dest/petsc/lib:$dest/deps:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
  exec "$@"
  ;;
*)
  echo "usage: $0 pack | run CMD..."; exit 2;;
esac
