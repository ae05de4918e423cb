"""The 2D 5-point Laplacian the Python tests (test_petsc4py.py, test_slepc4py.py) build in each type."""


def laplacian(PETSc, n, mtype, shift=0.0, imagramp=0.0):
    """The 2D 5-point Laplacian on an n x n grid in type mtype, rows distributed as PETSc chooses;
    PETSc: the initialized petsc4py module. Complex builds: shift (a Helmholtz-like operator with
    absorption, L + shift I) and imagramp (i imagramp r / n^2 added to row r's diagonal: not Hermitian)"""
    A = PETSc.Mat().create(comm=PETSc.COMM_WORLD)
    A.setSizes([n * n, n * n])
    A.setType(mtype)
    A.setPreallocationNNZ((5, 4))
    lo, hi = A.getOwnershipRange()
    for r in range(lo, hi):
        i, j = divmod(r, n)
        A.setValue(r, r, 4.0 + shift + 1j * imagramp * r / (n * n) if shift or imagramp else 4.0)
        for ii, jj in ((i - 1, j), (i + 1, j), (i, j - 1), (i, j + 1)):
            if 0 <= ii < n and 0 <= jj < n:
                A.setValue(r, ii * n + jj, -1.0)
    A.assemble()
    return A
