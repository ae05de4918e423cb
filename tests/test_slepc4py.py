"""SLEPc (slepc4py) with petscspmv: an eigenproblem on our matrix types gives AIJ's eigenvalues.

    python tests/test_slepc4py.py LIBPETSCSPMV [options]   (also under mpiexec -n 2)
    python tests/test_slepc4py.py LIBPETSCSPMV --aijcusparse [options]   (a GPU: the reference is
                                                                            aijcusparse with cuSPARSE's ICC(0))

Krylov-Schur for the largest eigenvalues of the 2D Laplacian, and shift-and-invert for the
smallest, whose inner solves are CG + ICC(0) by MATSOLVERSPMVFACTOR (block Jacobi in parallel), on brc,
spmv and ellr against AIJ with PETSc's factors. Complex builds add the eigenvalues nearest a complex
target of a non-Hermitian operator, by shift-and-invert with GMRES + ILU(0). Exits 1 on a failed check."""
import sys

import slepc4py

GPU = "--aijcusparse" in sys.argv
slepc4py.init([sys.argv[0], "-dll_append", sys.argv[1]] + [a for a in sys.argv[2:] if a != "--aijcusparse"])
from petsc4py import PETSc  # noqa: E402
from slepc4py import SLEPc  # noqa: E402

from laplacian import laplacian  # noqa: E402


def krylov_schur(A, problem, package, target=None, ksptype=None, factor=None):
    """Krylov-Schur for 4 eigenvalues of A: the largest, or with a target those nearest it by
    shift-and-invert, whose inner solves are ksptype + factor by the factor package (block Jacobi in
    parallel); returns the converged eigenvalues"""
    eps = SLEPc.EPS().create(comm=A.getComm())
    eps.setOperators(A)
    eps.setProblemType(problem)
    eps.setType(SLEPc.EPS.Type.KRYLOVSCHUR)
    eps.setDimensions(nev=4)
    eps.setTolerances(tol=1e-10)
    if target is not None:
        eps.setTarget(target)
        eps.setWhichEigenpairs(SLEPc.EPS.Which.TARGET_MAGNITUDE)
        st = eps.getST()
        st.setType(SLEPc.ST.Type.SINVERT)
        ksp = st.getKSP()
        ksp.setType(ksptype)
        ksp.setTolerances(rtol=1e-12)
        pc = ksp.getPC()
        if A.getComm().getSize() > 1:
            pc.setType("bjacobi")
            eps.setUp()
            for sub in pc.getBJacobiSubKSP():
                sub.getPC().setType(factor)
                sub.getPC().setFactorSolverType(package)
        else:
            pc.setType(factor)
            pc.setFactorSolverType(package)
    else:
        eps.setWhichEigenpairs(SLEPc.EPS.Which.LARGEST_MAGNITUDE)
    eps.setFromOptions()
    eps.solve()
    return [eps.getEigenvalue(k) for k in range(min(eps.getConverged(), 4))]


def eigenvalues(A, smallest, package):
    """the 4 largest, or (shift-and-invert at 0, CG + ICC(0)) the 4 smallest, sorted"""
    problem = SLEPc.EPS.ProblemType.HEP
    got = krylov_schur(A, problem, package, 0.0, "cg", "icc") if smallest else krylov_schur(A, problem, package)
    return sorted(v.real for v in got)


def complex_target(A, package):
    """Complex builds: the 4 eigenvalues nearest the complex target 0.05 + 0.5i of a non-Hermitian
    operator (the Laplacian plus i r / n^2 on row r's diagonal), shift-and-invert whose inner solves are
    GMRES + ILU(0) by the factor package (block Jacobi in parallel), in order of real then imaginary part"""
    got = krylov_schur(A, SLEPc.EPS.ProblemType.NHEP, package, 0.05 + 0.5j, "gmres", "ilu")
    return sorted(got, key=lambda v: (round(v.real, 8), round(v.imag, 8)))


def main():
    n = 30
    failed = []
    if PETSc.ScalarType(0).dtype.kind == "c":
        ref = complex_target(laplacian(PETSc, n, "aijcusparse" if GPU else PETSc.Mat.Type.AIJ, imagramp=1.0), "cusparse" if GPU else "petsc")
        assert len(ref) == 4, "reference did not converge (complex target)"
        for t in ("brc", "spmv", "ellr"):
            got = complex_target(laplacian(PETSc, n, t, imagramp=1.0), "spmvfactor")
            # each one against the nearest of the reference's (pairs equally far from the target may come in either order)
            err = max(min(abs(a - b) / abs(b) for b in ref) for a in got) if len(got) == 4 else 1.0
            ok = err < 1e-8
            PETSc.Sys.Print(f"{'ok' if ok else 'FAILED'} {t}: 4 eigenvalues nearest the complex target 0.05+0.5i (GMRES + ILU(0) by spmvfactor) "
                            f"{' '.join(f'{v.real:.8f}{v.imag:+.8f}i' for v in got)}, relative difference to {'aijcusparse' if GPU else 'AIJ'}'s {err:.1e}")
            if not ok:
                failed.append(f"{t} (complex target)")
    for smallest in (False, True):
        refmat = laplacian(PETSc, n, "aijcusparse" if GPU else PETSc.Mat.Type.AIJ)
        if GPU and "cuda" not in refmat.createVecLeft().getType():
            PETSc.Sys.Print("FAILED: aijcusparse's vectors are not CUDA vectors: no GPU?")
            sys.exit(1)
        ref = eigenvalues(refmat, smallest, "cusparse" if GPU else "petsc")
        assert len(ref) == 4, "AIJ reference did not converge"
        for t in ("brc", "spmv", "ellr"):
            got = eigenvalues(laplacian(PETSc, n, t), smallest, "spmvfactor")
            err = max(abs(a - b) / abs(b) for a, b in zip(got, ref)) if len(got) == 4 else 1.0
            ok = err < 1e-8
            what = "smallest (shift-and-invert, CG + ICC(0) by spmvfactor)" if smallest else "largest"
            PETSc.Sys.Print(f"{'ok' if ok else 'FAILED'} {t}: 4 {what} eigenvalues "
                            f"{' '.join(f'{v:.10f}' for v in got)}, relative difference to {'aijcusparse' if GPU else 'AIJ'}'s {err:.1e}")
            if not ok:
                failed.append(f"{t} ({what})")
    if failed:
        PETSc.Sys.Print("failed: " + ", ".join(failed))
        sys.exit(1)


main()
