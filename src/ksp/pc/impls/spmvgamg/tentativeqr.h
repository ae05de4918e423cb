#pragma once
/*
  The scalar steps of the Householder QR of one aggregate's near-null block, as reference LAPACK
  (3.10 and on) takes them in dgeqr2/dorg2r: what PETSc's formProl0 gets from dgeqrf/dorgqr for the
  few columns of a near-null space (below LAPACK's block size of 32 they are the unblocked routines).
  Shared by the host reference (tentative.c) and the device kernel (device/tentative.cu), so that the
  two give the same bits wherever the host arithmetic fuses no multiply-adds (x86-64's baseline).

  Why LAPACK's order and not any stable QR: a reflector's sign is -sign(alpha), alpha the diagonal
  entry before the reflection. Where alpha is zero in exact arithmetic (a rotation of nodes whose
  coordinates cancel, a mode that is zero on the aggregate's first row) its sign is that of a rounding
  error, or of a signed zero, and another order of operations would flip a column of Q and a row of R
  against PETSc's. Hence the same sums in the same order, products and sums rounded separately (the
  device's compiler would fuse them), BLAS's three-accumulator norm, and LAPACK's skips of zero
  reflector entries and zero columns (they keep the signs of zeros).
*/
#include <petscsys.h>

#if defined(__CUDACC__)
  #define MATSPMVGAMG_QR_FN static inline __host__ __device__
#else
  #define MATSPMVGAMG_QR_FN static inline
#endif

/* a * b and a + b each rounded once: on the device never fused into an FMA */
MATSPMVGAMG_QR_FN PetscReal MatSpmvGAMGQRMul(PetscReal a, PetscReal b)
{
#if defined(__CUDA_ARCH__) && defined(PETSC_USE_REAL_SINGLE)
  return __fmul_rn(a, b);
#elif defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}

MATSPMVGAMG_QR_FN PetscReal MatSpmvGAMGQRAdd(PetscReal a, PetscReal b)
{
#if defined(__CUDA_ARCH__) && defined(PETSC_USE_REAL_SINGLE)
  return __fadd_rn(a, b);
#elif defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/* BLAS's dnrm2 (reference BLAS 3.10 on: Blue's algorithm, three accumulators) of x[0], ..., x[n-1]:
   the plain sum of squares in index order unless entries are below 2^-511 or above 2^486 */
MATSPMVGAMG_QR_FN PetscReal MatSpmvGAMGQRNrm2(PetscInt n, const PetscReal *x)
{
#if defined(PETSC_USE_REAL_SINGLE)
  const PetscReal tsml = 0x1p-63f, tbig = 0x1p52f, ssml = 0x1p75f, sbig = 0x1p-76f;
#else /* double; other precisions take double's thresholds, which only decide when to scale */
  const PetscReal tsml = 0x1p-511, tbig = 0x1p486, ssml = 0x1p537, sbig = 0x1p-538;
#endif
  PetscReal abig = 0, amed = 0, asml = 0, scl, sumsq;
  PetscBool notbig = PETSC_TRUE;

  if (n <= 0) return 0;
  for (PetscInt i = 0; i < n; i++) {
    const PetscReal ax = PetscAbsReal(x[i]);

    if (ax > tbig) {
      const PetscReal t = MatSpmvGAMGQRMul(ax, sbig);

      abig   = MatSpmvGAMGQRAdd(abig, MatSpmvGAMGQRMul(t, t));
      notbig = PETSC_FALSE;
    } else if (ax < tsml) {
      const PetscReal t = MatSpmvGAMGQRMul(ax, ssml);

      if (notbig) asml = MatSpmvGAMGQRAdd(asml, MatSpmvGAMGQRMul(t, t));
    } else amed = MatSpmvGAMGQRAdd(amed, MatSpmvGAMGQRMul(ax, ax));
  }
  if (abig > 0) {
    if (amed > 0 || amed != amed) abig = MatSpmvGAMGQRAdd(abig, MatSpmvGAMGQRMul(MatSpmvGAMGQRMul(amed, sbig), sbig));
    scl   = 1 / sbig;
    sumsq = abig;
  } else if (asml > 0) {
    if (amed > 0 || amed != amed) {
      PetscReal ymin, ymax, r;

      amed = PetscSqrtReal(amed);
      asml = PetscSqrtReal(asml) / ssml;
      ymin = asml > amed ? amed : asml;
      ymax = asml > amed ? asml : amed;
      r    = ymin / ymax;
      scl  = 1;
      /* ymax**2*( one + (ymin/ymax)**2 ) */
      sumsq = MatSpmvGAMGQRMul(MatSpmvGAMGQRMul(ymax, ymax), MatSpmvGAMGQRAdd(1, MatSpmvGAMGQRMul(r, r)));
    } else {
      scl   = 1 / ssml;
      sumsq = asml;
    }
  } else {
    scl   = 1;
    sumsq = amed;
  }
  return MatSpmvGAMGQRMul(scl, PetscSqrtReal(sumsq));
}

/* LAPACK's dlapy2: sqrt(x^2 + y^2) as w sqrt(1 + (z/w)^2) */
MATSPMVGAMG_QR_FN PetscReal MatSpmvGAMGQRLapy2(PetscReal x, PetscReal y)
{
  const PetscReal xa = PetscAbsReal(x), ya = PetscAbsReal(y), w = xa > ya ? xa : ya, z = xa > ya ? ya : xa;
  PetscReal       r;

  if (x != x || y != y) return y != y ? y : x;
  if (z == 0 || w > PETSC_MAX_REAL) return w;
  r = z / w;
  return MatSpmvGAMGQRMul(w, PetscSqrtReal(MatSpmvGAMGQRAdd(1, MatSpmvGAMGQRMul(r, r))));
}

/* LAPACK's dlarfg on the column (alpha, x[0], ..., x[n-2]): H (alpha, x) = (beta, 0) with
   H = I - tau (1, v)(1, v)^T; on return *alpha is beta and x holds v. tau = 0 (H = I, alpha kept,
   whatever its sign) when x is zero; otherwise beta = -sign(alpha) |(alpha, x)|, a signed zero's
   sign included (Fortran's SIGN, as gfortran computes it, is copysign) */
MATSPMVGAMG_QR_FN void MatSpmvGAMGQRLarfg(PetscInt n, PetscReal *alpha, PetscReal *x, PetscReal *tau)
{
#if defined(PETSC_USE_REAL_SINGLE)
  const PetscReal safmin = 0x1p-102f, rsafmn = 0x1p102f; /* dlamch('S') / dlamch('E') */
#else
  const PetscReal safmin = 0x1p-969, rsafmn = 0x1p969;
#endif
  PetscReal xnorm, beta, scal;
  PetscInt  knt = 0;

  *tau = 0;
  if (n <= 1) return;
  xnorm = MatSpmvGAMGQRNrm2(n - 1, x);
  if (xnorm == 0) return;
  beta = -PetscCopysignReal(MatSpmvGAMGQRLapy2(*alpha, xnorm), *alpha);
  if (PetscAbsReal(beta) < safmin) { /* beta and x may be inaccurate: scale them up, as LAPACK does */
    do {
      knt++;
      for (PetscInt i = 0; i < n - 1; i++) x[i] = MatSpmvGAMGQRMul(rsafmn, x[i]);
      beta   = MatSpmvGAMGQRMul(beta, rsafmn);
      *alpha = MatSpmvGAMGQRMul(*alpha, rsafmn);
    } while (PetscAbsReal(beta) < safmin && knt < 20);
    xnorm = MatSpmvGAMGQRNrm2(n - 1, x);
    beta  = -PetscCopysignReal(MatSpmvGAMGQRLapy2(*alpha, xnorm), *alpha);
  }
  *tau = (beta - *alpha) / beta;
  scal = 1 / (*alpha - beta);
  for (PetscInt i = 0; i < n - 1; i++) x[i] = MatSpmvGAMGQRMul(scal, x[i]);
  for (PetscInt j = 0; j < knt; j++) beta = MatSpmvGAMGQRMul(beta, safmin);
  *alpha = beta;
}
