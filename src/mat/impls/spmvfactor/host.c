/*
  MATSOLVERSPMVFACTOR's host reference (a matrix on the AIJ base, or SeqAIJ: no GPU): the same algorithm as
  ilu.cu's and trsv.cu's kernels, sequentially. The numeric ILU(k)/ICC(k) on the factor's pattern, ISAI's
  approximate inverses, and the three ways MatSolve() applies the factors: exact substitution,
  block-Jacobi sweeps over units (-petscspmv_factor_trsv jacobi), ISAI products (-petscspmv_factor_trsv isai).
*/
#include "spmvfactorimpl.h"

/* the host reference: a sequential ILU(k) (on the factor's pattern) in the same order as the device's; a pivot counts as
   zero when its magnitude (positive: its real part) is at most zeropivot */
PetscErrorCode MatSpmvILUHost(Mat_SpmvFactor *f, const PetscScalar *aval, PetscReal zeropivot, PetscBool positive, PetscInt *zeropivotrow)
{
  PetscFunctionBegin;
  *zeropivotrow = -1;
  if (f->vmap)
    for (PetscInt k = 0; k < f->nnz; k++) f->a[k] = f->vmap[k] >= 0 ? aval[f->vmap[k]] : 0.0; /* -1: fill */
  else PetscCall(PetscArraycpy(f->a, aval, f->nnz));
  for (PetscInt r = 0; r < f->n; r++) {
    const PetscInt re = f->i[r + 1];
    PetscScalar    piv;

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) {
      const PetscInt    k = f->j[p];
      const PetscScalar l = f->a[p] * f->idiag[k];
      PetscInt          s = p + 1;

      f->a[p] = l;
      if (f->i[k + 1] - f->diag[k] - 1 > MATSPMV_ILU_LONG_PIVOT * (re - s)) { /* a long pivot row (an arrow's dense one): row r's columns looked up in it */
        const PetscInt u = f->diag[k] + 1, nu = f->i[k + 1] - u;

        for (; s < re; s++) {
          PetscInt loc;

          PetscCall(PetscFindInt(f->j[s], nu, f->j + u, &loc));
          if (loc >= 0) f->a[s] -= l * f->a[u + loc];
        }
        continue;
      }
      for (PetscInt q = f->diag[k] + 1; q < f->i[k + 1] && s < re; q++) { /* both rows sorted: merge */
        while (s < re && f->j[s] < f->j[q]) s++;
        if (s < re && f->j[s] == f->j[q]) f->a[s] -= l * f->a[q];
      }
    }
    piv = f->a[f->diag[r]];
    if ((positive ? PetscRealPart(piv) : PetscAbsScalar(piv)) <= zeropivot && *zeropivotrow < 0) *zeropivotrow = r;
    f->idiag[r] = 1.0 / piv;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the factor's entry (k, c) in row k's range [lo, hi), or 0 */
static PetscScalar MatSpmvFactorEntry(const Mat_SpmvFactor *f, PetscInt lo, PetscInt hi, PetscInt c)
{
  PetscInt loc;

  PetscCallAbort(PETSC_COMM_SELF, PetscFindInt(c, hi - lo, f->j + lo, &loc));
  return loc >= 0 ? f->a[lo + loc] : 0.0;
}

/* ISAI on the host, as MatSpmvISAIKernel(): per row r, M_L's row on L's pattern J solves
   L(J, J)^T m = e_r, M_U's on U's pattern U(J, J)^T m = e_r */
PetscErrorCode MatSpmvISAIHost(Mat_SpmvFactor *f)
{
  PetscFunctionBegin;
  for (PetscInt r = 0; r < f->n; r++) {
    const PetscInt rs = f->i[r], rd = f->diag[r], re = f->i[r + 1];

    for (PetscInt p = rd - 1; p >= rs; p--) {
      PetscScalar v = f->a[p];

      for (PetscInt q = p + 1; q < rd; q++) v += f->m[q] * MatSpmvFactorEntry(f, f->i[f->j[q]], f->diag[f->j[q]], f->j[p]);
      f->m[p] = -v;
    }
    f->m[rd] = f->idiag[r];
    for (PetscInt p = rd + 1; p < re; p++) {
      PetscScalar v = 0.0;

      for (PetscInt q = rd; q < p; q++) v += f->m[q] * MatSpmvFactorEntry(f, f->diag[f->j[q]], f->i[f->j[q] + 1], f->j[p]);
      f->m[p] = -v * f->idiag[f->j[p]];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* one block-Jacobi sweep of L x = b (upper: U x = b) on the host, as MatSpmvTriSweepKernel(): per
   unit, xout = (the unit's block)^{-1} (b - (entries outside the unit) xin), by substitution inside
   the unit; xin NULL: zero */
static void MatSpmvSweepHost(const Mat_SpmvFactor *f, PetscBool upper, const PetscScalar *b, const PetscScalar *xin, PetscScalar *xout)
{
  for (PetscInt u = 0; u < f->nunits; u++) {
    const PetscInt r0 = u * f->unit, r1 = PetscMin(r0 + f->unit, f->n);

    for (PetscInt k = 0; k < r1 - r0; k++) {
      const PetscInt r = upper ? r1 - 1 - k : r0 + k;
      PetscScalar    s = b[r];

      if (upper) {
        for (PetscInt p = f->diag[r] + 1; p < f->uout[r]; p++) s -= f->a[p] * xout[f->j[p]];
        for (PetscInt p = f->uout[r]; xin && p < f->i[r + 1]; p++) s -= f->a[p] * xin[f->j[p]];
        xout[r] = s * f->idiag[r];
      } else {
        for (PetscInt p = f->i[r]; xin && p < f->lin[r]; p++) s -= f->a[p] * xin[f->j[p]];
        for (PetscInt p = f->lin[r]; p < f->diag[r]; p++) s -= f->a[p] * xout[f->j[p]];
        xout[r] = s;
      }
    }
  }
}

/* the exact solves on the host: L y = b (unit diagonal), then U x = y, in place in x */
void MatSpmvTriSolveHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = b[r];

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) s -= f->a[p] * x[f->j[p]];
    x[r] = s;
  }
  for (PetscInt r = f->n - 1; r >= 0; r--) {
    PetscScalar s = x[r];

    for (PetscInt p = f->diag[r] + 1; p < f->i[r + 1]; p++) s -= f->a[p] * x[f->j[p]];
    x[r] = s * f->idiag[r];
  }
}

/* -petscspmv_factor_trsv jacobi on the host: L into work, then U into x, each the block-diagonal solve and
   f->sweeps sweeps; the last sweep writes the result, the others alternate with work + n */
void MatSpmvTriSweepsHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  for (int upper = 0; upper < 2; upper++) {
    const PetscScalar *rhs = upper ? f->work : b, *in = NULL;
    PetscScalar       *result = upper ? x : f->work, *other = f->work + f->n;

    for (PetscInt k = 0; k <= f->sweeps; k++) {
      PetscScalar *out = (f->sweeps - k) % 2 ? other : result;

      MatSpmvSweepHost(f, (PetscBool)upper, rhs, in, out);
      in = out;
    }
  }
}

/* -petscspmv_factor_trsv isai on the host: y = M_L b into work, x = M_U y */
void MatSpmvISAISolveHost(const Mat_SpmvFactor *f, const PetscScalar *b, PetscScalar *x)
{
  PetscScalar *y = f->work;

  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = b[r];

    for (PetscInt p = f->i[r]; p < f->diag[r]; p++) s += f->m[p] * b[f->j[p]];
    y[r] = s;
  }
  for (PetscInt r = 0; r < f->n; r++) {
    PetscScalar s = 0.0;

    for (PetscInt p = f->diag[r]; p < f->i[r + 1]; p++) s += f->m[p] * y[f->j[p]];
    x[r] = s;
  }
}
