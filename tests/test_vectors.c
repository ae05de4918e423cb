static char help[] = "Products with PETSc's defaults on every mix of host and CUDA vectors match MATAIJ's: a new\n"
                     "matrix takes aijcusparse's products until its layout is earned, and those are wrong with\n"
                     "host vectors (docs/limits.md), so a product on them must build the layout at once.\n"
                     "  -type <brc>  petscspmv type to test\n";

#include "check.h"

/* 2D 5-point operator of n x n points with unequal entries, so that a wrong column shows */
static PetscErrorCode Operator(PetscInt n, Mat *A)
{
  PetscInt rstart, rend;

  PetscFunctionBegin;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n * n, n * n, 5, NULL, 2, NULL, A));
  PetscCall(MatGetOwnershipRange(*A, &rstart, &rend));
  for (PetscInt r = rstart; r < rend; r++) {
    PetscInt    i = r / n, j = r % n, c[5], nc = 0;
    PetscScalar v[5];

    c[nc] = r, v[nc++] = 4.0 + r % 7;
    if (i > 0) c[nc] = r - n, v[nc++] = -1.0 - 0.1 * (r % 3);
    if (i < n - 1) c[nc] = r + n, v[nc++] = -1.0;
    if (j > 0) c[nc] = r - 1, v[nc++] = -0.5;
    if (j < n - 1) c[nc] = r + 1, v[nc++] = -1.5;
    PetscCall(MatSetValues(*A, 1, &r, nc, c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char        type[64] = MATBRC;
  Mat         Aref, A;
  PetscRandom rnd;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-type", type, sizeof(type), NULL));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(Operator(30, &Aref));
  /* x (and the transpose's y) on the host or as the matrix makes them (CUDA with a GPU), y and z
     likewise; a new matrix for each mix, so that each starts with aijcusparse's products */
  for (int mix = 0; mix < 4; mix++) {
    const PetscBool xhost = (PetscBool)(mix & 1), yhost = (PetscBool)(mix & 2);
    Vec             x, y, z, xt, yt, zt, xo, yo;
    char            name[64];

    PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
    PetscCall(MatCreateVecs(xhost ? Aref : A, &x, &yo));
    PetscCall(MatCreateVecs(yhost ? Aref : A, &xo, &y));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecDuplicate(x, &yt)); /* A^T's y has x's layout, on x's side */
    PetscCall(VecDuplicate(y, &xt));
    PetscCall(VecDuplicate(x, &zt));
    {
      VecType xtype, ytype;

      PetscCall(VecGetType(x, &xtype));
      PetscCall(VecGetType(y, &ytype));
      PetscCall(PetscSNPrintf(name, sizeof(name), "%s, x %s, y %s", type, xtype, ytype));
    }
    PetscCall(CheckProductsWith(A, Aref, x, y, z, xt, yt, zt, rnd, name));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "ok %s: the four products as MATAIJ's\n", name));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xt));
    PetscCall(VecDestroy(&yt));
    PetscCall(VecDestroy(&zt));
    PetscCall(VecDestroy(&xo));
    PetscCall(VecDestroy(&yo));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(PetscFinalize());
  return 0;
}
