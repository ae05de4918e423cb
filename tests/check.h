#pragma once
/* Shared by the tests: compare every product of a petscspmv matrix with MATAIJ's. */
#include <petscspmv.h>

#if defined(PETSC_USE_REAL_SINGLE)
  #define SPMV_TOL 1e-5
#else
  #define SPMV_TOL 1e-12
#endif

static inline PetscErrorCode CheckClose(Vec y, Vec yref, const char *what, const char *name)
{
  Vec       d;
  PetscReal err, ref;

  PetscFunctionBegin;
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecCopy(y, d)); /* y may live on the GPU */
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecNorm(d, NORM_INFINITY, &err));
  PetscCall(VecNorm(yref, NORM_INFINITY, &ref));
  PetscCall(VecDestroy(&d));
  /* written so that NaN (an unwritten poisoned entry) fails */
  PetscCheck(err <= SPMV_TOL * PetscMax(ref, 1.0), PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s differs from MATAIJ: max error %g, max |y| %g", name, what, (double)err, (double)ref);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* NaN in every entry: an entry a product forgets to write cannot pass */
static inline PetscErrorCode Poison(Vec y)
{
  PetscScalar *a;
  PetscInt     n;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(y, &n));
  PetscCall(VecGetArrayWrite(y, &a));
  for (PetscInt i = 0; i < n; i++) a[i] = (PetscScalar)NAN;
  PetscCall(VecRestoreArrayWrite(y, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* y = A x, y = A x + z (y != z and y == z), and the transpose ones, each against Aref.
   Outputs are poisoned with NaN first so an unwritten entry cannot pass. */
static inline PetscErrorCode CheckProductsWith(Mat A, Mat Aref, Vec x, Vec y, Vec z, Vec xt, Vec yt, Vec zt, PetscRandom rnd, const char *name)
{
  Vec yr, xr, zr, ytr, xtr, ztr;

  PetscFunctionBegin;
  PetscCall(MatCreateVecs(Aref, &xr, &yr));
  PetscCall(VecDuplicate(yr, &zr));
  PetscCall(MatCreateVecs(Aref, &ytr, &xtr));
  PetscCall(VecDuplicate(ytr, &ztr));
  PetscCall(VecSetRandom(xr, rnd));
  PetscCall(VecSetRandom(zr, rnd));
  PetscCall(VecSetRandom(xtr, rnd));
  PetscCall(VecSetRandom(ztr, rnd));
  PetscCall(VecCopy(xr, x));
  PetscCall(VecCopy(zr, z));
  PetscCall(VecCopy(xtr, xt));
  PetscCall(VecCopy(ztr, zt));

  PetscCall(MatMult(Aref, xr, yr));
  PetscCall(Poison(y));
  PetscCall(MatMult(A, x, y));
  PetscCall(CheckClose(y, yr, "MatMult", name));

  PetscCall(MatMultAdd(Aref, xr, zr, yr));
  PetscCall(Poison(y));
  PetscCall(MatMultAdd(A, x, z, y));
  PetscCall(CheckClose(y, yr, "MatMultAdd", name));
  PetscCall(VecCopy(z, y));
  PetscCall(MatMultAdd(A, x, y, y));
  PetscCall(CheckClose(y, yr, "MatMultAdd with y == z", name));

  PetscCall(MatMultTranspose(Aref, xtr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(CheckClose(yt, ytr, "MatMultTranspose", name));

  PetscCall(MatMultTransposeAdd(Aref, xtr, ztr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultTransposeAdd(A, xt, zt, yt));
  PetscCall(CheckClose(yt, ytr, "MatMultTransposeAdd", name));
  PetscCall(VecCopy(zt, yt));
  PetscCall(MatMultTransposeAdd(A, xt, yt, yt));
  PetscCall(CheckClose(yt, ytr, "MatMultTransposeAdd with y == z", name));

  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&xtr));
  PetscCall(VecDestroy(&ytr));
  PetscCall(VecDestroy(&ztr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* With A's own vectors (CUDA vectors when a GPU is used) and with plain host vectors */
static inline PetscErrorCode CheckProducts(Mat A, Mat Aref, PetscRandom rnd, const char *name)
{
  Vec x, y, z, xt, yt, zt;

  PetscFunctionBegin;
  for (int host = 0; host < 2; host++) {
    PetscCall(MatCreateVecs(host ? Aref : A, &x, &y));
    PetscCall(MatCreateVecs(host ? Aref : A, &yt, &xt));
    PetscCall(VecDuplicate(y, &z));
    PetscCall(VecDuplicate(yt, &zt));
    PetscCall(CheckProductsWith(A, Aref, x, y, z, xt, yt, zt, rnd, name));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&y));
    PetscCall(VecDestroy(&z));
    PetscCall(VecDestroy(&xt));
    PetscCall(VecDestroy(&yt));
    PetscCall(VecDestroy(&zt));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
