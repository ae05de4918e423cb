/*
  GAMG's tentative prolongator P0 for our matrices, host reference: PETSc's formProl0
  (src/ksp/pc/impls/gamg/agg.c) on aggregates given as arrays. Per aggregate, the near-null block B
  (its members' rows, root first, then the others in increasing index, padded with zero rows to at
  least as many rows as modes) is factored B = Q R as LAPACK's dgeqrf/dorgqr do it
  (tentativeqr.h); Q's rows are P0's rows of the members, R the coarse near-null space.
*/
#include "spmvgamgimpl.h"
#include "tentativeqr.h"

PetscErrorCode MatSpmvGAMGAggregateMembers(PetscInt nloc, PetscInt nagg, const PetscInt agg[], const PetscInt roots[], PetscInt aggptr[], PetscInt members[])
{
  PetscInt *next;

  PetscFunctionBegin;
  PetscCall(PetscArrayzero(aggptr, nagg + 1));
  for (PetscInt i = 0; i < nloc; i++) {
    PetscCheck(agg[i] >= -1 && agg[i] < nagg, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "Node %" PetscInt_FMT " is in aggregate %" PetscInt_FMT ", not one of the %" PetscInt_FMT " aggregates (or -1, none)", i, agg[i], nagg);
    if (agg[i] >= 0) aggptr[agg[i] + 1]++;
  }
  for (PetscInt a = 0; a < nagg; a++) {
    PetscCheck(roots[a] >= 0 && roots[a] < nloc && agg[roots[a]] == a, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "The root %" PetscInt_FMT " of aggregate %" PetscInt_FMT " is not one of its nodes", roots[a], a);
    aggptr[a + 1] += aggptr[a];
  }
  PetscCall(PetscMalloc1(nagg, &next));
  for (PetscInt a = 0; a < nagg; a++) {
    members[aggptr[a]] = roots[a];
    next[a]            = aggptr[a] + 1;
  }
  for (PetscInt i = 0; i < nloc; i++)
    if (agg[i] >= 0 && i != roots[agg[i]]) members[next[agg[i]]++] = i;
  PetscCall(PetscFree(next));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* LAPACK's dlarf('Left'): c = (I - tau v v^T) c for the m x n matrix c (leading dimension ld) and
   v = (1, v[1], ..., v[m-1]) (v[0] is not read: dgeqr2 and dorg2r put a 1 there). As LAPACK, only the
   rows up to v's last nonzero and the columns up to the last one nonzero in those rows; w = c^T v
   as dgemv sums it; the update as dger makes it, skipping a column whose w is zero */
static void MatSpmvGAMGQRLarfLeft(PetscInt m, PetscInt n, const PetscReal *v, PetscReal tau, PetscReal *c, PetscInt ld, PetscReal *w)
{
  PetscInt lastv = m, lastc = n;

  if (tau == 0) return;
  while (lastv > 1 && v[lastv - 1] == 0) lastv--;
  for (; lastc > 0; lastc--) {
    PetscBool nz = PETSC_FALSE;

    for (PetscInt i = 0; i < lastv && !nz; i++) nz = (PetscBool)(c[i + (lastc - 1) * ld] != 0);
    if (nz) break;
  }
  for (PetscInt j = 0; j < lastc; j++) {
    PetscReal t = 0;

    for (PetscInt i = 0; i < lastv; i++) t = MatSpmvGAMGQRAdd(t, MatSpmvGAMGQRMul(c[i + j * ld], i ? v[i] : 1));
    w[j] = MatSpmvGAMGQRAdd(0, t); /* dgemv's y = 0 + 1 * t */
  }
  for (PetscInt j = 0; j < lastc; j++) {
    if (w[j] != 0) {
      const PetscReal t = MatSpmvGAMGQRMul(-tau, w[j]);

      for (PetscInt i = 0; i < lastv; i++) c[i + j * ld] = MatSpmvGAMGQRAdd(c[i + j * ld], MatSpmvGAMGQRMul(i ? v[i] : 1, t));
    }
  }
}

/* The md x n block W (column-major, md >= n) factored in place as dgeqr2 does it: R on and above
   the diagonal, the reflectors below, their tau */
static void MatSpmvGAMGQRFactor(PetscInt md, PetscInt n, PetscReal *W, PetscReal *tau, PetscReal *w)
{
  for (PetscInt j = 0; j < n; j++) {
    MatSpmvGAMGQRLarfg(md - j, &W[j + j * md], &W[j + 1 + j * md], &tau[j]);
    if (j + 1 < n) MatSpmvGAMGQRLarfLeft(md - j, n - j - 1, &W[j + j * md], tau[j], &W[j + (j + 1) * md], md, w);
  }
}

/* Q's n columns from the reflectors, in place, as dorg2r does it */
static void MatSpmvGAMGQRFormQ(PetscInt md, PetscInt n, PetscReal *W, const PetscReal *tau, PetscReal *w)
{
  for (PetscInt i = n - 1; i >= 0; i--) {
    if (i + 1 < n) MatSpmvGAMGQRLarfLeft(md - i, n - i - 1, &W[i + i * md], tau[i], &W[i + (i + 1) * md], md, w);
    for (PetscInt r = i + 1; r < md; r++) W[r + i * md] = MatSpmvGAMGQRMul(-tau[i], W[r + i * md]);
    W[i + i * md] = 1 - tau[i];
    for (PetscInt r = 0; r < i; r++) W[r + i * md] = 0;
  }
}

PetscErrorCode MatSpmvGAMGTentativeHost(const MatSpmvGAMGNearNull *B, PetscInt nagg, const PetscInt agg[], const PetscInt roots[], const MatSpmvGAMGP0 *P0)
{
  const PetscInt   nloc = B->nloc, bs = B->bs, ncols = B->ncols, n = ncols, ldd = nloc * bs;
  const PetscReal *data = B->data;
  PetscInt        *pi = P0->pi, *pj = P0->pj;
  PetscScalar     *pv    = P0->pv;
  PetscReal       *cdata = P0->cdata;
  PetscInt        *aggptr, *members, mdmax = n;
  PetscReal       *W, *tau, *w;

  PetscFunctionBegin;
  PetscCheck(bs >= 1 && ncols >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "The tentative prolongator needs a block size (%" PetscInt_FMT ") and a number of near-null vectors (%" PetscInt_FMT ") of at least 1", bs, ncols);
  PetscCall(PetscMalloc2(nagg + 1, &aggptr, nloc, &members));
  PetscCall(MatSpmvGAMGAggregateMembers(nloc, nagg, agg, roots, aggptr, members));
  for (PetscInt a = 0; a < nagg; a++) mdmax = PetscMax(mdmax, (aggptr[a + 1] - aggptr[a]) * bs);
  PetscCall(PetscMalloc3(mdmax * n, &W, n, &tau, n, &w));
  /* a node's bs rows hold n entries each, in an aggregate; none otherwise */
  pi[0] = 0;
  for (PetscInt row = 0; row < nloc * bs; row++) pi[row + 1] = pi[row] + (agg[row / bs] >= 0 ? n : 0);
  for (PetscInt a = 0; a < nagg; a++) {
    const PetscInt first = aggptr[a], m = (aggptr[a + 1] - first) * bs, md = PetscMax(m, n);

    /* the block of the members' rows, zero rows below up to n rows (formProl0 pads so: LAPACK's Q
       then has n orthonormal columns, and R is n x n, whatever the aggregate's size) */
    for (PetscInt k = 0; k < n; k++) {
      for (PetscInt i = 0; i < m; i++) W[i + k * md] = data[k * ldd + members[first + i / bs] * bs + i % bs];
      for (PetscInt i = m; i < md; i++) W[i + k * md] = 0;
    }
    MatSpmvGAMGQRFactor(md, n, W, tau, w);
    /* the coarse data: R, stored as formProl0 stores it, mode by mode (stride nagg n), zero below */
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) cdata[j * nagg * n + a * n + i] = i <= j ? W[i + j * md] : 0;
    MatSpmvGAMGQRFormQ(md, n, W, tau, w);
    for (PetscInt i = 0; i < m; i++) {
      const PetscInt off = pi[members[first + i / bs] * bs + i % bs];

      for (PetscInt k = 0; k < n; k++) {
        pj[off + k] = a * n + k;
        pv[off + k] = W[i + k * md];
      }
    }
  }
  PetscCall(PetscFree3(W, tau, w));
  PetscCall(PetscFree2(aggptr, members));
  PetscFunctionReturn(PETSC_SUCCESS);
}
