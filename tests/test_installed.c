static char help[] = "A program built against an installed petscspmv through pkg-config alone: every type's\n"
                     "product with a tridiagonal matrix matches MATAIJ's.\n";

/* Only the installed header: nothing from the source tree. */
#include <petscspmv.h>

int main(int argc, char **argv)
{
  const MatType  types[] = {MATBRC, MATCMRS, MATARGCSR, MATIPCSR, MATELLR, MATSPMV};
  const PetscInt n       = 1000;
  Mat            A, Aaij;
  Vec            x, y, yref;
  PetscInt       rstart, rend;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &Aaij));
  PetscCall(MatGetOwnershipRange(Aaij, &rstart, &rend));
  for (PetscInt i = rstart; i < rend; i++) {
    PetscInt    c[3] = {i - 1, i, i + 1};
    PetscScalar v[3] = {-1.0, 2.0 + i % 3, -1.5};

    PetscCall(MatSetValues(Aaij, 1, &i, 3 - (i == 0) - (i == n - 1), i ? c : c + 1, i ? v : v + 1, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(Aaij, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Aaij, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(Aaij, &x, &yref));
  PetscCall(VecSetRandom(x, NULL));
  PetscCall(MatMult(Aaij, x, yref));
  for (size_t t = 0; t < PETSC_STATIC_ARRAY_LENGTH(types); t++) {
    PetscReal err, ref;
    MatType   actual;

    PetscCall(MatConvert(Aaij, types[t], MAT_INITIAL_MATRIX, &A));
    PetscCall(MatGetType(A, &actual));
    PetscCall(MatCreateVecs(A, NULL, &y));
    PetscCall(MatMult(A, x, y));
    PetscCall(VecAXPY(y, -1.0, yref));
    PetscCall(VecNorm(y, NORM_INFINITY, &err));
    PetscCall(VecNorm(yref, NORM_INFINITY, &ref));
    PetscCheck(err <= 100 * PETSC_MACHINE_EPSILON * ref, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: |y - y_aij| = %g, |y_aij| = %g", actual, (double)err, (double)ref);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: product matches MATAIJ's (|y - y_aij| = %g)\n", actual, (double)err));
    PetscCall(VecDestroy(&y));
    PetscCall(MatDestroy(&A));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&Aaij));
  PetscCall(PetscFinalize());
  return 0;
}
