#!/usr/bin/env bash
# Runs petscspmv on a GPU machine that has the CUDA runtime and Open MPI but no PETSc.
#
#   scripts/gpu-bundle.sh pack            (here) PETSc's include+lib (stripped), the BLAS/LAPACK it
#                                         links, lib/ and build/bin/ -> .bundle/petscspmv-gpu-real.tar.xz
#                                         (PETSCSPMV_VARIANT=complex|single: that build instead;
#                                         PETSCSPMV_BUNDLE=path: another name, e.g. one per PETSc version)
#   scripts/gpu-bundle.sh python [X.Y]    (here) petsc4py, SLEPc and slepc4py built against this PETSc for
#                                         the GPU machine's Python X.Y (default 3.12; pyenv's X.Y here), by
#                                         scripts/setup-python.sh --slepc into their own environment, packed
#                                         without numpy (that machine has its own) -> .bundle/python-X.Y.tar.xz
#                                         (a variant's: .bundle/python-X.Y-<variant>.tar.xz)
#   scripts/gpu-bundle.sh run CMD...      (there, in a copy of this tree holding .bundle/) unpack
#                                         once, point the loader at it, run CMD (e.g. tests/run.sh;
#                                         with a python-X.Y bundle, its 'python/*' cases run too)
# The bundle is relocatable: programs find its libraries through LD_LIBRARY_PATH.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here"
scalar=${PETSCSPMV_VARIANT:-real}
if [ "$scalar" = real ]; then builddir=build libdir=lib; else builddir=build/$scalar libdir=build/$scalar/lib; fi
bundle=${PETSCSPMV_BUNDLE:-.bundle/petscspmv-gpu-$scalar.tar.xz}
pysuffix=$([ "$scalar" = real ] || echo "-$scalar") # the Python bundle's, one per variant (petsc4py links its PETSc)

case "${1:-}" in
pack)
  . scripts/petsc-env.sh
  [ -f $libdir/libpetscspmv.so ] || { echo "build first: make PETSCSPMV_VARIANT=$scalar"; exit 1; }
  stage=$(mktemp -d)
  mkdir -p "$stage/petsc/lib" "$stage/deps"
  cp -a "$PETSC_DIR/include" "$stage/petsc/"
  echo "$PETSC_DIR" >"$stage/petsc/prefix" # where petscvariables say PETSc is (run links it there)
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
python)
  . scripts/petsc-env.sh
  pyver=${2:-3.12}
  py=$(ls -d "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$pyver"*/bin/python3 2>/dev/null | tail -1)
  [ -x "$py" ] || { echo "no Python $pyver here (pyenv install $pyver)"; exit 1; }
  # one absolute path here and there: SLEPc's library is found by the path it was built at
  venv=$PETSCSPMV_CACHE/gpu-python-$pyver$pysuffix
  PETSCSPMV_PYTHON_VENV=$venv PYTHON=$py scripts/setup-python.sh --slepc
  site=${venv#/}/lib/python$pyver/site-packages
  out=.bundle/python-$pyver$pysuffix.tar.xz
  mkdir -p .bundle
  tar -C / -cJf "$out" --exclude='numpy*' --exclude='Cython*' --exclude='cython*' --exclude='pip*' --exclude='setuptools*' \
    --exclude='__pycache__' "$site"
  echo "python bundle: $out, $(($(stat -c %s "$out") / 1024 / 1024)) MiB"
  ;;
run)
  shift
  # one directory per bundle file (name, time, size): a machine kept between calls unpacks a new one
  dest=${PETSCSPMV_BUNDLE_DIR:-/tmp/petscspmv-bundle}-$(basename "$bundle" .tar.xz)-$(stat -c %Y-%s "$bundle")
  if [ ! -d "$dest/petsc" ]; then
    mkdir -p "$dest"
    tar -C "$dest" -xJf "$bundle"
  fi
  # PETSc's petscvariables name the directory it was built into (petsc4py's build reads its
  # include flags from them): where that directory is missing, it becomes a link to the bundle's
  orig=$(cat "$dest/petsc/prefix" 2>/dev/null || true)
  if [ -n "$orig" ] && [ ! -e "$orig" ]; then mkdir -p "$(dirname "$orig")" && ln -s "$dest/petsc" "$orig"; fi
  # the tree's own build outputs come from the bundle, each file replaced by a new one (not written
  # over), so a run beside another in the same tree leaves its running programs alone ("Text file busy")
  mkdir -p $libdir $builddir/bin
  cp -a --remove-destination "$dest/tree/lib/." $libdir/
  cp -a --remove-destination "$dest/tree/bin/." $builddir/bin/
  export PETSC_DIR=$dest/petsc PETSC_ARCH=
  # petsc4py and slepc4py packed by `python` here, at the path they were built at, run by this machine's
  # Python (whose numpy they use) through a bin/python that adds their site-packages
  for pb in .bundle/python-*.tar.xz; do
    [ -f "$pb" ] || continue
    pyver=$(basename "$pb" .tar.xz) pyver=${pyver#python-}
    case $pyver in *-*) [ "-${pyver#*-}" = "$pysuffix" ] || continue; pyver=${pyver%%-*} ;; *) [ -z "$pysuffix" ] || continue ;; esac
    venv=$(tar -tJf "$pb" 2>/dev/null | head -1) || true
    venv=/${venv%%/lib/python*}
    [ -d "$venv/lib/python$pyver/site-packages/petsc4py" ] || tar -C / -xJf "$pb"
    mkdir -p "$venv/bin"
    # the python3 found here (mpiexec's processes may find another, without numpy)
    printf '#!/bin/sh\nPYTHONPATH=%s${PYTHONPATH:+:$PYTHONPATH} exec %s "$@"\n' "$venv/lib/python$pyver/site-packages" "$(command -v python3)" >"$venv/bin/python"
    chmod +x "$venv/bin/python"
    export PETSCSPMV_PYTHON_VENV=$venv
  done
  export LD_LIBRARY_PATH=$dest/petsc/lib:$dest/deps:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  export PETSC_OPTIONS="${PETSC_OPTIONS:-} -use_gpu_aware_mpi 0"
  exec "$@"
  ;;
*)
  echo "usage: $0 pack | python [X.Y] | run CMD..."; exit 2;;
esac
