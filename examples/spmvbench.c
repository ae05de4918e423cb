static char help[] = "SpMV benchmark: each matrix type's product checked against MATAIJ and timed with CUDA events.\n"
                     "  -matrix <laplace2d|laplace3d27|ex19|elastic3d|powerlaw|circuit|path.mtx>  the matrix (default laplace2d)\n"
                     "  -n <N>          grid size (laplace2d 4096, laplace3d27 150, ex19 1400, elastic3d 70) or rows (powerlaw 3000000, circuit 4000000)\n"
                     "  -types <list>   comma-separated types (default aijcusparse,sellcuda,brc); type@name reads that entry's\n"
                     "                  options under the prefix name_, e.g. -types cmrs,cmrs@mod -mod_mat_cmrs_kernel modified\n"
                     "  -reps <100>     timed products per type\n";

#include <petscspmv.h>
#include <petscdevice_cuda.h>
#include "mmread.h"

static PetscInt Hash(PetscInt a, PetscInt b)
{
  unsigned long long h = (unsigned long long)a * 0x9E3779B97F4A7C15ULL ^ ((unsigned long long)b + 0x632BE59BD9B4E019ULL);
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ULL;
  h ^= h >> 29;
  return (PetscInt)(h & 0x7fffffff);
}

/* Stencil matrices straight into CSR: dim-D grid n^dim, stencil half-width 1 (5/7-point star
   when box is false, 9/27-point box when true), dof unknowns per point fully coupled (ex19's
   Jacobian: 2D star, 4 fields, 20 nonzeros per row) */
static PetscErrorCode StencilCSR(PetscInt dim, PetscInt n, PetscBool box, PetscInt dof, PetscInt *m, PetscInt **ai, PetscInt **aj, PetscScalar **aa)
{
  PetscInt npts = dim == 2 ? n * n : n * n * n, maxnb = (dim == 2 ? 9 : 27) * dof, nz = 0;

  PetscFunctionBegin;
  *m = npts * dof;
  PetscCall(PetscMalloc1(*m + 1, ai));
  PetscCall(PetscMalloc1((size_t)*m * maxnb, aj));
  (*ai)[0] = 0;
  for (PetscInt p = 0; p < npts; p++) {
    PetscInt i = p % n, j = (p / n) % n, k = dim == 3 ? p / (n * n) : 0;
    for (PetscInt f = 0; f < dof; f++) {
      for (PetscInt dk = (dim == 3 ? -1 : 0); dk <= (dim == 3 ? 1 : 0); dk++)
        for (PetscInt dj = -1; dj <= 1; dj++)
          for (PetscInt di = -1; di <= 1; di++) {
            PetscInt ii = i + di, jj = j + dj, kk = k + dk;
            if (!box && PetscAbsInt(di) + PetscAbsInt(dj) + PetscAbsInt(dk) > 1) continue;
            if (ii < 0 || ii >= n || jj < 0 || jj >= n || kk < 0 || kk >= n) continue;
            for (PetscInt g = 0; g < dof; g++) (*aj)[nz++] = ((kk * n + jj) * n + ii) * dof + g;
          }
      (*ai)[p * dof + f + 1] = nz;
    }
  }
  PetscCall(PetscMalloc1(nz, aa));
  for (PetscInt q = 0; q < nz; q++) (*aa)[q] = 1.0 + (PetscReal)(q % 7) * 0.1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Power-law row lengths (Pareto, alpha 1.5, at least 2, at most 20000), random columns and the diagonal */
static PetscErrorCode PowerLawCSR(PetscInt m, PetscInt *ai[], PetscInt *aj[], PetscScalar *aa[])
{
  PetscInt nz = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m + 1, ai));
  (*ai)[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscReal u   = (Hash(i, 1) % 1000000 + 1) / 1000001.0;
    PetscInt  len = PetscMin((PetscInt)(2.0 * PetscPowReal(u, -1.0 / 1.5)), 20000);
    (*ai)[i + 1]  = (*ai)[i] + PetscMax(len, 1);
  }
  PetscCall(PetscMalloc1((*ai)[m], aj));
  PetscCall(PetscMalloc1((*ai)[m], aa));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt len = (*ai)[i + 1] - (*ai)[i];
    (*aj)[nz++]  = i;
    for (PetscInt k = 1; k < len; k++) (*aj)[nz++] = Hash(i, k) % m;
    PetscCall(PetscSortInt(len, *aj + (*ai)[i]));
    /* duplicates are legal in the sorted rows of MatCreateSeqAIJWithArrays only if removed */
    for (PetscInt k = 1; k < len; k++)
      if ((*aj)[(*ai)[i] + k] == (*aj)[(*ai)[i] + k - 1]) (*aj)[(*ai)[i] + k] = -1;
  }
  /* squeeze out the duplicates */
  {
    PetscInt q = 0, start = 0;
    for (PetscInt i = 0; i < m; i++) {
      PetscInt end = (*ai)[i + 1];
      for (PetscInt k = start; k < end; k++)
        if ((*aj)[k] >= 0) (*aj)[q++] = (*aj)[k];
      start        = end;
      (*ai)[i + 1] = q;
    }
  }
  for (PetscInt q = 0; q < (*ai)[m]; q++) (*aa)[q] = 1.0 + (PetscReal)(q % 5) * 0.25;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Circuit-like rows: 2 to 6 entries near the diagonal, one row in a thousand with 1000 to 10000
   entries anywhere, and two supply nets (rows 0 and m/2) coupled to a twentieth of all columns */
static PetscErrorCode CircuitCSR(PetscInt m, PetscInt *ai[], PetscInt *aj[], PetscScalar *aa[])
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc1(m + 1, ai));
  (*ai)[0] = 0;
  for (PetscInt i = 0; i < m; i++) {
    PetscInt len = 2 + Hash(i, 2) % 5;
    if (i == 0 || i == m / 2) len = m / 20;
    else if (Hash(i, 3) % 1000 == 0) len = 1000 + Hash(i, 4) % 9000;
    (*ai)[i + 1] = (*ai)[i] + PetscMin(PetscMax(len, 1), m);
  }
  PetscCall(PetscMalloc1((*ai)[m], aj));
  PetscCall(PetscMalloc1((*ai)[m], aa));
  for (PetscInt i = 0; i < m; i++) {
    PetscInt start = (*ai)[i], len = (*ai)[i + 1] - start;
    if (len <= 6) { /* a band around the diagonal */
      PetscInt first = PetscMin(PetscMax(i - len / 2, 0), m - len);
      for (PetscInt k = 0; k < len; k++) (*aj)[start + k] = first + k;
    } else { /* evenly spread, distinct and sorted */
      for (PetscInt k = 0; k < len; k++) (*aj)[start + k] = (PetscInt)(((double)k * m) / len + Hash(i, k) % PetscMax(m / len, 1));
    }
  }
  for (PetscInt q = 0; q < (*ai)[m]; q++) (*aa)[q] = 1.0 + (PetscReal)(q % 3) * 0.5;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogDouble first, scale, setval, mult; /* seconds: first product, product after MatScale, after MatSetValues + assembly, steady product */
  PetscReal      err;
  PetscLogDouble storedbytes;
  PetscBool      refused; /* the format refused the matrix (ellr's padding limit, 32-bit sizes): not timed */
} Result;

static PetscErrorCode TimeType(Mat Aref, const char *entry, PetscInt reps, Vec xref, Vec yref, Result *res)
{
  Mat            A;
  Vec            x, y;
  cudaStream_t   stream;
  cudaEvent_t    e0, e1;
  float          ms;
  PetscLogDouble t0, t1, tr;
  PetscInt       m, n, nnz;
  MatInfo        info;
  PetscBool      ours;
  char           type[64], prefix[64] = "";
  char          *at;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(type, entry, sizeof(type)));
  if ((at = strchr(type, '@'))) { /* type@name: the entry's own options, under name_ */
    *at = 0;
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", at + 1));
  }
  PetscCall(MatGetSize(Aref, &m, &n));
  PetscCall(MatGetInfo(Aref, MAT_LOCAL, &info));
  nnz = (PetscInt)info.nz_used;
  PetscCall(PetscGetCurrentCUDAStream(&stream));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &x));
  PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, m, &y));
  PetscCall(VecCopy(xref, x));

  /* first product: conversion, upload, build of the format's layout */
  PetscCall(PetscTime(&t0));
  PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
  PetscCall(MatSetOptionsPrefix(A, prefix));
  PetscCall(MatSetFromOptions(A));
  {
    PetscErrorCode ierr;
    const char    *why = NULL;

    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MatMult(A, x, y);
    PetscCall(PetscPopErrorHandler());
    if (ierr == PETSC_ERR_SUP) {
      PetscCall(PetscErrorMessage(ierr, NULL, &why));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s refused: %s\n", entry, why ? why : "(no message)"));
      res->refused = PETSC_TRUE;
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
      PetscCall(MatDestroy(&A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(ierr);
  }
  PetscCallCUDA(cudaDeviceSynchronize());
  PetscCall(PetscTime(&t1));
  res->first = t1 - t0;
  {
    Vec d;
    PetscReal e, r;
    PetscCall(VecDuplicate(yref, &d));
    PetscCall(VecCopy(y, d));
    PetscCall(VecAXPY(d, -1.0, yref));
    PetscCall(VecNorm(d, NORM_2, &e));
    PetscCall(VecNorm(yref, NORM_2, &r));
    res->err = e / r;
    PetscCall(VecDestroy(&d));
  }
  for (PetscInt k = 0; k < 10; k++) PetscCall(MatMult(A, x, y)); /* warm-up */
  PetscCallCUDA(cudaEventCreate(&e0));
  PetscCallCUDA(cudaEventCreate(&e1));
  PetscCallCUDA(cudaEventRecord(e0, stream));
  for (PetscInt k = 0; k < reps; k++) PetscCall(MatMult(A, x, y));
  PetscCallCUDA(cudaEventRecord(e1, stream));
  PetscCallCUDA(cudaEventSynchronize(e1));
  PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
  res->mult = ms / 1000.0 / reps;

  /* values changed (same pattern): the product after the change brings the format up to date.
     MatScale() runs on the device for aijcusparse and our types; MatSetValues() + assembly
     changes the host copy, so the next product uploads the values. Only for AIJ-based types. */
  res->scale = res->setval = -1;
  PetscCall(PetscObjectBaseTypeCompare((PetscObject)A, MATSEQAIJ, &ours));
  for (int k = 0; ours && k < 4; k++) { /* k = 0, 1: MatScale; 2, 3: MatSetValues; the second of each is the steady one */
    PetscInt    row = k, col;
    PetscScalar v;

    if (k < 2) PetscCall(MatScale(A, 1.0 + 1e-3 * (k + 1)));
    else {
      const PetscInt *cols;
      PetscInt        nc;

      PetscCall(MatGetRow(A, row, &nc, &cols, NULL));
      col = cols[0];
      PetscCall(MatRestoreRow(A, row, &nc, &cols, NULL));
      v = 1.0;
      PetscCall(MatSetValues(A, 1, &row, 1, &col, &v, ADD_VALUES));
      PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    }
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&t0));
    PetscCall(MatMult(A, x, y));
    PetscCallCUDA(cudaDeviceSynchronize());
    PetscCall(PetscTime(&tr));
    if (k < 2) res->scale = PetscMax(tr - t0, 0.0);
    else res->setval = PetscMax(tr - t0, 0.0);
  }

  PetscCall(PetscObjectHasFunction((PetscObject)A, "MatSpmvGetStorage_C", &ours));
  if (ours) PetscCall(MatSpmvGetStorage(A, NULL, &res->storedbytes));
  else {
    PetscBool sell;
    MatType   mt;
    PetscCall(MatGetType(A, &mt));
    PetscCall(PetscStrbeginswith(mt, "seqsell", &sell));
    if (sell) { /* SELL stores values and columns for padded slots plus slice pointers */
      MatInfo si;
      PetscCall(MatGetInfo(A, MAT_LOCAL, &si));
      res->storedbytes = si.nz_allocated * (sizeof(PetscScalar) + sizeof(int)) + (m / 8 + 1) * sizeof(int);
    } else res->storedbytes = (PetscLogDouble)nnz * (sizeof(PetscScalar) + sizeof(int)) + (m + 1) * sizeof(int);
  }
  PetscCallCUDA(cudaEventDestroy(e0));
  PetscCallCUDA(cudaEventDestroy(e1));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char         matrix[PETSC_MAX_PATH_LEN] = "laplace2d", *types[64];
  PetscInt     n = -1, reps = 100, ntypes = 64, m, ncols, nnz, *ai = NULL, *aj = NULL;
  PetscScalar *aa = NULL;
  Mat          Aref;
  Vec          xref, yref;
  PetscReal    mu, sigma = 0;
  PetscInt     maxlen = 0;
  PetscBool    file, set;
  double       minbytes;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscSpmvInitializePackage());
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, &set));
  if (!set) {
    ntypes = 3;
    PetscCall(PetscStrallocpy(MATAIJCUSPARSE, &types[0]));
    PetscCall(PetscStrallocpy(MATSELLCUDA, &types[1]));
    PetscCall(PetscStrallocpy(MATBRC, &types[2]));
  }
  PetscCall(PetscStrendswith(matrix, ".mtx", &file));
  if (file) PetscCall(MatLoadMatrixMarket(PETSC_COMM_SELF, matrix, MATSEQAIJ, &Aref));
  else {
    PetscBool l2, l3, ex19, el, pl, ci;
    PetscCall(PetscStrcmp(matrix, "laplace2d", &l2));
    PetscCall(PetscStrcmp(matrix, "laplace3d27", &l3));
    PetscCall(PetscStrcmp(matrix, "ex19", &ex19));
    PetscCall(PetscStrcmp(matrix, "elastic3d", &el));
    PetscCall(PetscStrcmp(matrix, "powerlaw", &pl));
    PetscCall(PetscStrcmp(matrix, "circuit", &ci));
    if (l2) PetscCall(StencilCSR(2, n > 0 ? n : 4096, PETSC_FALSE, 1, &m, &ai, &aj, &aa));
    else if (l3) PetscCall(StencilCSR(3, n > 0 ? n : 150, PETSC_TRUE, 1, &m, &ai, &aj, &aa));
    else if (ex19) PetscCall(StencilCSR(2, n > 0 ? n : 1400, PETSC_FALSE, 4, &m, &ai, &aj, &aa)); /* DMDA star stencil, 4 fields */
    else if (el) PetscCall(StencilCSR(3, n > 0 ? n : 70, PETSC_TRUE, 3, &m, &ai, &aj, &aa)); /* 27-point box, 3 displacements: 81 per row */
    else if (ci) {
      m = n > 0 ? n : 4000000;
      PetscCall(CircuitCSR(m, &ai, &aj, &aa));
    } else if (pl) {
      m = n > 0 ? n : 3000000;
      PetscCall(PowerLawCSR(m, &ai, &aj, &aa));
    } else SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "Unknown -matrix %s: use laplace2d, laplace3d27, ex19, elastic3d, powerlaw, circuit or a .mtx file", matrix);
    PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &Aref));
  }
  PetscCall(MatGetSize(Aref, &m, &ncols));
  {
    const PetscInt *ri, *rj;
    PetscScalar    *ra;
    PetscMemType    mt;

    PetscCall(MatSeqAIJGetCSRAndMemType(Aref, &ri, &rj, &ra, &mt));
    nnz = ri[m];
    mu  = (PetscReal)nnz / m;
    for (PetscInt i = 0; i < m; i++) {
      PetscInt len = ri[i + 1] - ri[i];
      sigma += PetscSqr(len - mu);
      maxlen = PetscMax(maxlen, len);
    }
    sigma = PetscSqrtReal(sigma / m);
  }
  minbytes = (double)(sizeof(PetscScalar) + sizeof(int)) * nnz + sizeof(int) * (m + 1.0) + sizeof(PetscScalar) * (double)(m + ncols);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "matrix %s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt_FMT " nonzeros, row length mean %.2f std %.2f max %" PetscInt_FMT "; minimal bytes %.1f MB; %" PetscInt_FMT " timed products\n", matrix, m, ncols, nnz, (double)mu, (double)sigma, maxlen, minbytes / 1e6, reps));
  PetscCall(MatCreateVecs(Aref, &xref, &yref));
  {
    PetscRandom rnd;
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(VecSetRandom(xref, rnd));
    PetscCall(PetscRandomDestroy(&rnd));
  }
  PetscCall(MatMult(Aref, xref, yref));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10s %10s %10s %12s %12s %12s %12s %10s\n", "type", "time(us)", "GFLOP/s", "GB/s", "bytes/nnz", "first(ms)", "scale(ms)", "setval(ms)", "rel.err"));
  for (PetscInt t = 0; t < ntypes; t++) {
    Result r = {0};
    PetscCall(TimeType(Aref, types[t], reps, xref, yref, &r));
    if (r.refused) continue;
    char scale[32] = "n/a", setval[32] = "n/a";
    if (r.scale >= 0) PetscCall(PetscSNPrintf(scale, sizeof(scale), "%.2f", r.scale * 1e3));
    if (r.setval >= 0) PetscCall(PetscSNPrintf(setval, sizeof(setval), "%.2f", r.setval * 1e3));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10.1f %10.2f %10.1f %12.2f %12.2f %12s %12s %10.1e\n", types[t], r.mult * 1e6, 2.0 * nnz / r.mult / 1e9, minbytes / r.mult / 1e9, r.storedbytes / nnz, r.first * 1e3, scale, setval, (double)r.err));
    PetscCheck(r.err < (sizeof(PetscReal) == 4 ? 1e-4 : 1e-10), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s product differs from MATAIJ: relative error %g", types[t], (double)r.err);
  }
  for (PetscInt t = 0; t < ntypes; t++) PetscCall(PetscFree(types[t]));
  PetscCall(VecDestroy(&xref));
  PetscCall(VecDestroy(&yref));
  PetscCall(MatDestroy(&Aref));
  PetscCall(PetscFree(ai));
  PetscCall(PetscFree(aj));
  PetscCall(PetscFree(aa));
  PetscCall(PetscFinalize());
  return 0;
}
