#!/usr/bin/env python3
"""examples/ex1.c from Python: the 5-point Laplacian on an n x n grid, solved by CG + ICC(0) with the
factor by petscspmv's solver package (MATSOLVERSPMVFACTOR), the matrix type from the command line.

    python3 examples/ex1.py /path/lib/libpetscspmv.so -mat_type brc -vec_type cuda -ksp_converged_reason

The first argument is the library; the rest are PETSc options (-n 64, -mat_type brc, cmrs, argcsr,
ipcsr, ellr or spmv; without one the matrix is AIJ). petsc4py must be built against the PETSc the
library was built with (make python)."""
import sys

import petsc4py

petsc4py.init([sys.argv[0], "-dll_append", sys.argv[1]] + sys.argv[2:])  # loads the library: its types, package, options
from petsc4py import PETSc  # noqa: E402 (after init)

n = PETSc.Options().getInt("n", 64)
N = n * n

# assembled as any AIJ matrix; -mat_type brc makes it one of ours from the start
A = PETSc.Mat().create()
A.setSizes([N, N])
A.setType("aij")
A.setFromOptions()
A.setPreallocationNNZ(5)
rstart, rend = A.getOwnershipRange()
for row in range(rstart, rend):
    i, j = divmod(row, n)
    cols = [c for c, inside in ((row - n, i > 0), (row - 1, j > 0), (row + 1, j < n - 1), (row + n, i < n - 1)) if inside]
    A.setValues(row, cols + [row], [-1.0] * len(cols) + [4.0])
A.assemble()

# b = A * ones: the exact solution is all ones
x, b = A.createVecs()
u = x.duplicate()
u.set(1.0)
A.mult(u, b)

# CG + ICC(0) by our solver package (block Jacobi on several processes: each block's ICC(0) from
# -sub_pc_factor_mat_solver_type spmvfactor); command-line options override all of it
ksp = PETSc.KSP().create()
ksp.setOperators(A)
ksp.setType("cg")
pc = ksp.getPC()
if PETSc.COMM_WORLD.getSize() == 1:
    pc.setType("icc")
    pc.setFactorSolverType("spmvfactor")
else:
    pc.setType("bjacobi")
    PETSc.Options().setValue("-sub_pc_type", "icc")
    if not PETSc.Options().hasName("sub_pc_factor_mat_solver_type"):
        PETSc.Options().setValue("-sub_pc_factor_mat_solver_type", "spmvfactor")
ksp.setTolerances(rtol=1e-8)
ksp.setFromOptions()
ksp.solve(b, x)

x.axpy(-1.0, u)
pkg = pc.getFactorSolverType() if pc.getType() == "icc" else "see -ksp_view"
PETSc.Sys.Print(f"Matrix: {A.getType()}, {N} x {N}; factor package: {pkg}; iterations {ksp.getIterationNumber()}, error norm {x.norm():.2e}")
