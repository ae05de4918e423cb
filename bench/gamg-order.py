#!/usr/bin/env python3
"""GMRES + GAMG iterations on the 2D Laplacian plus a shift (complex builds: a complex one), PETSc's
coarsening (AIJ; -reference aijcusparse on a GPU) next to ours (brc), to see how much the iterations move with
the coarsening's order (docs/limits.md, "GAMG's iterations on complex-shifted operators"):

    PYTHONPATH=tests <petsc4py's python> bench/gamg-order.py LIB SHIFT N [PETSc options]
    e.g. bench/gamg-order.py build/complex/lib/libpetscspmv.so 0.1+0.5j 64 -petscspmv_gamg
         ... -petscspmv_gamg_mat_coarsen_spmvmis_seed 3    (ours in another order)
         ... -pc_gamg_mis_k_minimum_degree_ordering      (PETSc's in another order)

Without a GPU our types take PETSc's coarsening unless -petscspmv_gamg is given (then our host reference).
Prints one line: N, the shift, the options, and each type's iterations (rtol 1e-10, b = 1)."""
import os
import sys

import petsc4py

petsc4py.init([sys.argv[0], "-dll_append", os.path.abspath(sys.argv[1])] + sys.argv[4:])
from petsc4py import PETSc  # noqa: E402

from laplacian import laplacian  # noqa: E402  (tests/)

shift, n = complex(sys.argv[2]), int(sys.argv[3])
if PETSc.ScalarType().dtype.kind != "c":
    shift = shift.real
reference = PETSc.Options().getString("reference", "aij")
out = []
for t in (reference, "brc"):
    A = laplacian(PETSc, n, t)
    A.shift(shift)
    ksp = PETSc.KSP().create()
    ksp.setOperators(A)
    ksp.setType("gmres")
    ksp.setTolerances(rtol=1e-10, max_it=2000)
    ksp.getPC().setType("gamg")
    ksp.setFromOptions()
    x, b = A.createVecs()
    b.set(1.0)
    ksp.solve(b, x)
    out.append(f"{t} {ksp.getIterationNumber()}")
print(n, shift, " ".join(sys.argv[4:]) or "(defaults)", ":", ", ".join(out))
