#pragma once
/* Shared by the tests: compare every product of a petscspmv matrix with MATAIJ's. */
#include <petscspmv.h>

/* |A|: the bound on rounding errors of products with A is built from it */
static inline PetscErrorCode AbsoluteMatrix(Mat A, Mat *Aabs)
{
  Mat         blocks[2];
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, Aabs));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)A), &size));
  if (size > 1) PetscCall(MatMPIAIJGetSeqAIJ(*Aabs, &blocks[0], &blocks[1], NULL));
  else blocks[0] = *Aabs, blocks[1] = NULL;
  for (int b = 0; b < 2 && blocks[b]; b++) {
    PetscScalar *a;
    PetscInt     nz;
    MatInfo      info;

    PetscCall(MatGetInfo(blocks[b], MAT_LOCAL, &info));
    nz = (PetscInt)info.nz_used;
    PetscCall(MatSeqAIJGetArray(blocks[b], &a));
    for (PetscInt k = 0; k < nz; k++) a[k] = PetscAbsScalar(a[k]);
    PetscCall(MatSeqAIJRestoreArray(blocks[b], &a));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Entry-wise: |y - yref| <= 2 n eps (|op(A)| |x| + |z|) with n the length of the sums (the
   columns of op(A)): the rounding of any summation order, atomics included, in both y and yref.
   The NaN of an unwritten entry fails. */
static inline PetscErrorCode CheckClose(Mat Aabs, PetscBool transpose, Vec x, Vec z, Vec y, Vec yref, const char *what, const char *name)
{
  Vec       d, bound, xa;
  PetscReal worst;
  PetscInt  m, n;

  PetscFunctionBegin;
  PetscCall(MatGetSize(Aabs, &m, &n));
  PetscCall(VecDuplicate(yref, &d));
  PetscCall(VecDuplicate(yref, &bound));
  PetscCall(VecDuplicate(x, &xa));
  PetscCall(VecCopy(x, xa));
  PetscCall(VecAbs(xa));
  if (transpose) PetscCall(MatMultTranspose(Aabs, xa, bound));
  else PetscCall(MatMult(Aabs, xa, bound));
  if (z) {
    PetscCall(VecCopy(z, d));
    PetscCall(VecAbs(d));
    PetscCall(VecAXPY(bound, 1.0, d));
  }
  PetscCall(VecScale(bound, 2.0 * (PetscMax(transpose ? m : n, 1) + 1) * PETSC_MACHINE_EPSILON));
  PetscCall(VecShift(bound, PETSC_SMALL * PETSC_MACHINE_EPSILON)); /* rows whose bound is 0 must be exact */
  PetscCall(VecCopy(y, d));                                        /* y may live on the GPU */
  PetscCall(VecAXPY(d, -1.0, yref));
  PetscCall(VecAbs(d));
  PetscCall(VecPointwiseDivide(d, d, bound));
  PetscCall(VecNorm(d, NORM_INFINITY, &worst));
  PetscCall(VecDestroy(&d));
  PetscCall(VecDestroy(&bound));
  PetscCall(VecDestroy(&xa));
  /* written so that NaN fails */
  PetscCheck(worst <= 1.0, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "%s: %s differs from MATAIJ: an entry is off by %g times its rounding bound", name, what, (double)worst);
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
  Mat Aabs;

  PetscFunctionBegin;
  PetscCall(AbsoluteMatrix(Aref, &Aabs));
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
  PetscCall(CheckClose(Aabs, PETSC_FALSE, xr, NULL, y, yr, "MatMult", name));

  PetscCall(MatMultAdd(Aref, xr, zr, yr));
  PetscCall(Poison(y));
  PetscCall(MatMultAdd(A, x, z, y));
  PetscCall(CheckClose(Aabs, PETSC_FALSE, xr, zr, y, yr, "MatMultAdd", name));
  PetscCall(VecCopy(z, y));
  PetscCall(MatMultAdd(A, x, y, y));
  PetscCall(CheckClose(Aabs, PETSC_FALSE, xr, zr, y, yr, "MatMultAdd with y == z", name));

  PetscCall(MatMultTranspose(Aref, xtr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultTranspose(A, xt, yt));
  PetscCall(CheckClose(Aabs, PETSC_TRUE, xtr, NULL, yt, ytr, "MatMultTranspose", name));

  PetscCall(MatMultTransposeAdd(Aref, xtr, ztr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultTransposeAdd(A, xt, zt, yt));
  PetscCall(CheckClose(Aabs, PETSC_TRUE, xtr, ztr, yt, ytr, "MatMultTransposeAdd", name));
  PetscCall(VecCopy(zt, yt));
  PetscCall(MatMultTransposeAdd(A, xt, yt, yt));
  PetscCall(CheckClose(Aabs, PETSC_TRUE, xtr, ztr, yt, ytr, "MatMultTransposeAdd with y == z", name));

  PetscCall(MatMultHermitianTranspose(Aref, xtr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultHermitianTranspose(A, xt, yt));
  PetscCall(CheckClose(Aabs, PETSC_TRUE, xtr, NULL, yt, ytr, "MatMultHermitianTranspose", name));

  PetscCall(MatMultHermitianTransposeAdd(Aref, xtr, ztr, ytr));
  PetscCall(Poison(yt));
  PetscCall(MatMultHermitianTransposeAdd(A, xt, zt, yt));
  PetscCall(CheckClose(Aabs, PETSC_TRUE, xtr, ztr, yt, ytr, "MatMultHermitianTransposeAdd", name));

  PetscCall(VecDestroy(&xr));
  PetscCall(VecDestroy(&yr));
  PetscCall(VecDestroy(&zr));
  PetscCall(VecDestroy(&xtr));
  PetscCall(VecDestroy(&ytr));
  PetscCall(VecDestroy(&ztr));
  PetscCall(MatDestroy(&Aabs));
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
