static char help[] = "Solves the 2D Laplacian with CG + ICC(0) on a petscspmv matrix, the factor by MATSOLVERSPMVFACTOR.\n"
                     "  -n <32>        grid points per side (n^2 unknowns)\n"
                     "  -mat_type brc  any petscspmv type (brc, cmrs, argcsr, ipcsr, ellr, spmv) or a PETSc one (default aij)\n"
                     "  -convert       assemble as AIJ, then MatConvert() to MATBRC (the explicit way)\n"
                     "KSP/PC options (-ksp_type, -pc_type, -pc_factor_mat_solver_type petsc, ...) override the defaults.\n\n";

/*
  A program that links petscspmv (build: see examples/README.md). With a GPU the petscspmv types
  run their products on it (add -vec_type cuda to keep the vectors there too) and MATSOLVERSPMVFACTOR
  factors and solves on it; without one the same program runs the host code of both.

    ./ex1 -n 100 -mat_type brc -mat_view ::ascii_info
    ./ex1 -n 100 -convert -ksp_monitor
    mpiexec -n 2 ./ex1 -mat_type brc                  (block Jacobi, ICC(0) blocks by MATSOLVERSPMVFACTOR)
*/
#include <petscksp.h>
#include <petscspmv.h> /* MATBRC, MATSOLVERSPMVFACTOR, PetscSpmvInitializePackage() */

int main(int argc, char **argv)
{
  Mat                A;
  Vec                x, b, u;
  KSP                ksp;
  PC                 pc;
  PetscInt           n       = 32, N, rstart, rend, its;
  PetscBool          convert = PETSC_FALSE, isbjacobi;
  PetscMPIInt        size;
  PetscReal          rnorm, enorm;
  MatType            mtype;
  PCType             pctype;
  KSPType            ksptype;
  MatSolverType      stype;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* registers the matrix types and the solver package: needed once, after PetscInitialize(),
     in a program that links the library (programs loading it with -dll_append need nothing) */
  PetscCall(PetscSpmvInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-convert", &convert, NULL));
  N = n * n;

  /* The 5-point Laplacian on an n x n grid, assembled as usual. MATAIJ by default; with
     -mat_type brc, MatSetFromOptions() makes it a petscspmv matrix from the start. */
  PetscCall(MatCreate(PETSC_COMM_WORLD, &A));
  PetscCall(MatSetSizes(A, PETSC_DECIDE, PETSC_DECIDE, N, N));
  PetscCall(MatSetType(A, MATAIJ));
  if (!convert) PetscCall(MatSetFromOptions(A));
  PetscCall(MatSeqAIJSetPreallocation(A, 5, NULL)); /* our types are AIJ matrices: AIJ's preallocation */
  PetscCall(MatMPIAIJSetPreallocation(A, 5, NULL, 2, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  for (PetscInt row = rstart; row < rend; row++) {
    PetscInt    i = row / n, j = row % n, cols[5], nc = 0; /* grid point (i, j) */
    PetscScalar vals[5];

    if (i > 0) cols[nc++] = row - n;
    if (j > 0) cols[nc++] = row - 1;
    if (j < n - 1) cols[nc++] = row + 1;
    if (i < n - 1) cols[nc++] = row + n;
    for (PetscInt k = 0; k < nc; k++) vals[k] = -1.0;
    cols[nc]   = row;
    vals[nc++] = 4.0;
    PetscCall(MatSetValues(A, 1, &row, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));

  /* The explicit way: an assembled AIJ matrix becomes a brc matrix in place (values and pattern
     kept; MatConvert(A, MATAIJ, ...) goes back) */
  if (convert) PetscCall(MatConvert(A, MATBRC, MAT_INPLACE_MATRIX, &A));

  /* b = A * ones, so the exact solution is all ones */
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(x, &u));
  PetscCall(VecSet(u, 1.0));
  PetscCall(MatMult(A, u, b));

  /* CG + ICC(0), the factor by our solver package (one process); on several processes block
     Jacobi, each process's block ICC(0) by MATSOLVERSPMVFACTOR. Command-line options override all this. */
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, size == 1 ? PCICC : PCBJACOBI));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERSPMVFACTOR)); /* ignored unless pc is a factor PC */
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_CURRENT, PETSC_CURRENT, PETSC_CURRENT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCBJACOBI, &isbjacobi));
  if (isbjacobi) { /* the blocks exist after KSPSetUp(): ICC(0) by MATSOLVERSPMVFACTOR, then -sub_ options */
    KSP     *subksp;
    PC       subpc;
    PetscInt nlocal;

    PetscCall(PCBJacobiGetSubKSP(pc, &nlocal, NULL, &subksp));
    for (PetscInt k = 0; k < nlocal; k++) {
      PetscCall(KSPGetPC(subksp[k], &subpc));
      PetscCall(PCSetType(subpc, PCICC));
      PetscCall(PCFactorSetMatSolverType(subpc, MATSOLVERSPMVFACTOR));
      PetscCall(KSPSetFromOptions(subksp[k]));
    }
  }
  PetscCall(KSPSolve(ksp, b, x));

  /* What ran: the matrix type and its layout (ascii_info), the factor package, the solve */
  PetscCall(MatGetType(A, &mtype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Matrix: %s, %" PetscInt_FMT " x %" PetscInt_FMT " (2D Laplacian, n = %" PetscInt_FMT ")\n", mtype, N, N, n));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_WORLD, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(A, PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_WORLD));
  PetscCall(PCGetType(pc, &pctype));
  if (isbjacobi) { /* the first block's, on the first process */
    KSP *subksp;
    PC   subpc;

    PetscCall(PCBJacobiGetSubKSP(pc, NULL, NULL, &subksp));
    PetscCall(KSPGetPC(subksp[0], &subpc));
    PetscCall(PCGetType(subpc, &pctype));
    PetscCall(PCFactorGetMatSolverType(subpc, &stype));
  } else PetscCall(PCFactorGetMatSolverType(pc, &stype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Preconditioner: %s%s, factor solver type: %s\n", isbjacobi ? "bjacobi + " : "", pctype, stype ? stype : "(none: not a factor)"));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(KSPGetResidualNorm(ksp, &rnorm));
  PetscCall(VecAXPY(u, -1.0, x));
  PetscCall(VecNorm(u, NORM_INFINITY, &enorm));
  PetscCall(KSPGetType(ksp, &ksptype));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "KSP %s: %s after %" PetscInt_FMT " iterations, residual norm %g, max error %g\n", ksptype, KSPConvergedReasons[reason], its, (double)rnorm, (double)enorm));

  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&u));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
