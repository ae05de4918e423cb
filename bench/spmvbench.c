static char help[] = "SpMV benchmark: each matrix type's product checked against MATAIJ and timed with CUDA events.\n"
                     "  -matrix <laplace2d|laplace3d27|ex19|elastic3d|powerlaw|circuit|rmat|laplace3d|path>  the matrix (default laplace2d;\n"
                     "                  laplace3d: the 7-point Dirichlet Laplacian, SPD; the others' values 1.0-1.6);\n"
                     "                  a path ending in .mtx is read as Matrix Market, any other (.petsc, .bin, ...) as a PETSc binary file\n"
                     "  -n <N>          grid size (laplace2d 4096, laplace3d27 150, ex19 1400, elastic3d 70, laplace3d (7-point) 200), rows (powerlaw 3000000,\n"
                     "                  circuit 4000000) or rmat's scale (21: 2^21 vertices)\n"
                     "  -rmat_edgefactor <16>  rmat: edges generated per vertex (before symmetrization and merging)\n"
                     "  -types <list>   comma-separated types (default aijcusparse,sellcuda,brc); type@name reads that entry's\n"
                     "                  options under the prefix name_, e.g. -types cmrs,cmrs@mod -mod_mat_cmrs_kernel modified\n"
                     "  -reps <100>     timed products per type\n"
                     "  -l2_persist_x   experiment: an L2 access-policy window keeping x resident while timing\n"
                     "  -inplace        convert the matrix itself to the one type given, no copy (a matrix near the host's\n"
                     "                  memory: laplace3d -n 680, past 2^31 nonzeros, with 64-bit PetscInt)\n"
                     "  -cg             also solve A x = A xref by CG + Jacobi with each type (-cg_rtol <1e-8>, -cg_max_it <100000>):\n"
                     "                  iterations, seconds, the true residual by the type's product and the error against xref\n"
                     "  -csv <file>     append one line per type to file (header first when the file is new)\n"
                     "  -name <label>   the matrix column of the CSV (default: the generator's name or the file's base name)\n"
                     "  -save <file>    also write the matrix to file (PETSc binary), for studies outside PETSc\n"
                     "  -peak_gbs <4285>  bandwidth for eta = minimal bytes / time / peak (4285 GB/s: the H200's measured device copy rate)\n"
                     "  -petscspmv_layout_min_products <0>  here 0: the first product builds the layout, so the timed ones are the\n"
                     "                  layout's (a program's default, 100, would time aijcusparse's products and the build)\n";

#include <petscspmv.h>
#include <petscksp.h>
#include <petscdevice_cuda.h>
#include "matrixmarket.h" /* util/: MatLoadMatrixMarket(), Hash() */

/* Stencil matrices straight into CSR: dim-D grid n^dim, stencil half-width 1 (5/7-point star
   when box is false, 9/27-point box when true), dof unknowns per point fully coupled (ex19's
   Jacobian: 2D star, 4 fields, 20 nonzeros per row) */
static PetscErrorCode StencilCSR(PetscInt dim, PetscInt n, PetscBool box, PetscInt dof, PetscInt *m, PetscInt **ai, PetscInt **aj, PetscScalar **aa)
{
  PetscInt npts = dim == 2 ? n * n : n * n * n, maxnb = (dim == 2 ? (box ? 9 : 5) : (box ? 27 : 7)) * dof, nz = 0;

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
    /* duplicates are legal in the sorted rows of MatCreateSeqAIJWithArrays only if removed; compared
       with the last kept column so that a third copy goes too */
    for (PetscInt k = 1, last = (*aj)[(*ai)[i]]; k < len; k++) {
      if ((*aj)[(*ai)[i] + k] == last) (*aj)[(*ai)[i] + k] = -1;
      else last = (*aj)[(*ai)[i] + k];
    }
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

/* splitmix64's finalizer: 64 well-mixed bits per call, so that one call gives R-MAT four levels */
static unsigned long long Mix64(unsigned long long x)
{
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

/* A bijection of [0, 2^scale): odd multiplications and xor-shifts are invertible modulo 2^scale.
   Graph500 relabels the vertices so that the high-degree ones are not all at the low indices. */
static PetscInt RmatScramble(PetscInt v, PetscInt scale)
{
  unsigned long long x = (unsigned long long)v, mask = (1ULL << scale) - 1;

  for (int r = 0; r < 2; r++) {
    x = (x * 0x9E3779B97F4A7C15ULL + 0x632BE59BD9B4E019ULL) & mask;
    x ^= x >> (scale / 2 + 1);
  }
  return (PetscInt)x;
}

/* Graph500's R-MAT graph (Kronecker generator, a = 0.57, b = 0.19, c = 0.19, d = 0.05): 2^scale vertices,
   edgefactor * 2^scale edges, each edge's quadrant at each of the scale levels drawn from a hash of
   (edge, level), vertices relabelled by RmatScramble(). Undirected as in Graph500: each edge (u, v)
   gives entries (u, v) and (v, u). Duplicate entries are merged (the pattern keeps one; its value is
   a hash of the unordered pair, in [1, 2), so the matrix is symmetric), self-loops are kept and
   vertices without edges leave empty rows. */
static PetscErrorCode RmatCSR(PetscInt scale, PetscInt edgefactor, PetscInt *m, PetscInt *ai[], PetscInt *aj[], PetscScalar *aa[])
{
  const double a = 0.57, b = 0.19, c = 0.19;
  PetscInt     nv, ne, *u, *v, *next, nz = 0;
  PetscInt64   entries;

  PetscFunctionBegin;
  PetscCheck(scale >= 1 && scale <= 40, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": rmat's scale (log2 of the vertex count) must be in [1, 40]", scale);
  PetscCheck(edgefactor >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-rmat_edgefactor %" PetscInt_FMT " must be at least 1", edgefactor);
  entries = 2 * (PetscInt64)edgefactor << scale;
  PetscCheck(entries <= PETSC_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "rmat scale %" PetscInt_FMT " edge factor %" PetscInt_FMT ": %" PetscInt64_FMT " entries before merging do not fit PetscInt; use a smaller scale or a 64-bit-index PETSc", scale, edgefactor, entries);
  nv = (PetscInt)1 << scale;
  ne = edgefactor * nv;
  *m = nv;
  PetscCall(PetscMalloc2(ne, &u, ne, &v));
  for (PetscInt e = 0; e < ne; e++) {
    unsigned long long bits = 0, x = 0, y = 0;

    for (PetscInt l = 0; l < scale; l++) {
      double r;

      if (l % 4 == 0) bits = Mix64(((unsigned long long)e << 8) + (unsigned long long)l / 4);
      r = (double)(bits & 0xffff) / 65536.0; /* 16 bits per level */
      bits >>= 16;
      x <<= 1;
      y <<= 1;
      if (r < a) continue;
      else if (r < a + b) y |= 1;
      else if (r < a + b + c) x |= 1;
      else {
        x |= 1;
        y |= 1;
      }
    }
    u[e] = RmatScramble((PetscInt)x, scale);
    v[e] = RmatScramble((PetscInt)y, scale);
  }
  /* counting sort by row: both directions of every edge */
  PetscCall(PetscCalloc1(nv + 1, ai));
  for (PetscInt e = 0; e < ne; e++) {
    (*ai)[u[e] + 1]++;
    (*ai)[v[e] + 1]++;
  }
  for (PetscInt i = 0; i < nv; i++) (*ai)[i + 1] += (*ai)[i];
  PetscCall(PetscMalloc1((*ai)[nv], aj));
  PetscCall(PetscMalloc1(nv, &next));
  PetscCall(PetscArraycpy(next, *ai, nv));
  for (PetscInt e = 0; e < ne; e++) {
    (*aj)[next[u[e]]++] = v[e];
    (*aj)[next[v[e]]++] = u[e];
  }
  PetscCall(PetscFree(next));
  PetscCall(PetscFree2(u, v));
  /* sort each row and merge its duplicates, compacting in place */
  for (PetscInt i = 0, start = 0; i < nv; i++) {
    PetscInt end = (*ai)[i + 1], first = nz;

    PetscCall(PetscSortInt(end - start, *aj + start));
    for (PetscInt k = start; k < end; k++)
      if (nz == first || (*aj)[k] != (*aj)[nz - 1]) (*aj)[nz++] = (*aj)[k];
    start        = end;
    (*ai)[i + 1] = nz;
  }
  PetscCall(PetscRealloc(sizeof(PetscInt) * PetscMax(nz, 1), aj));
  PetscCall(PetscMalloc1(PetscMax(nz, 1), aa));
  for (PetscInt i = 0; i < nv; i++)
    for (PetscInt k = (*ai)[i]; k < (*ai)[i + 1]; k++) {
      PetscInt j = (*aj)[k];
      (*aa)[k]   = 1.0 + (PetscReal)(Hash(PetscMin(i, j), PetscMax(i, j)) % 1024) / 1024.0;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* without a CUDA device (CI, a build host) the formats run their host reference kernels: the benchmark
   still runs, on host vectors and timed with PetscTime(), so that it and its CSV can be tested there */
static PetscBool gpu;
static PetscBool inplace; /* -inplace: the reference matrix itself converted, one type */

static PetscErrorCode Sync(void)
{
  PetscFunctionBegin;
  if (gpu) PetscCallCUDA(cudaDeviceSynchronize());
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  PetscLogDouble first, scale, setval, mult; /* seconds: first product, product after MatScale, after MatSetValues + assembly, steady product */
  PetscReal      err;
  PetscLogDouble storedbytes;
  PetscBool      refused; /* the format refused the matrix (ellr's padding limit, 32-bit sizes): not timed */
} Result;

/* -cg: CG + Jacobi on A x = b, b = A xref from MATAIJ, x0 = 0 (for the 2^31 case, where aijcusparse
   fails: the type's product in a whole solve, checked by the true residual and the known solution) */
static PetscErrorCode SolveCG(Mat A, const char *entry, Vec xref, Vec yref, Vec y)
{
  KSP                ksp;
  PC                 pc;
  Vec                b, x, e;
  PetscInt           its, maxit = 100000;
  PetscReal          rtol = 1e-8, rnorm, bnorm, enorm, xnorm;
  KSPConvergedReason reason;
  PetscLogDouble     t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-cg_rtol", &rtol, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-cg_max_it", &maxit, NULL));
  PetscCall(VecDuplicate(y, &b));
  PetscCall(VecDuplicate(y, &x));
  PetscCall(VecCopy(yref, b));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, rtol, PETSC_CURRENT, PETSC_CURRENT, maxit));
  PetscCall(KSPSetUp(ksp));
  PetscCall(Sync());
  PetscCall(PetscTime(&t0));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(MatMult(A, x, y)); /* the true residual b - A x */
  PetscCall(VecAYPX(y, -1.0, b));
  PetscCall(VecNorm(y, NORM_2, &rnorm));
  PetscCall(VecNorm(b, NORM_2, &bnorm));
  PetscCall(VecDuplicate(xref, &e)); /* on the host, as xref */
  PetscCall(VecCopy(x, e));
  PetscCall(VecAXPY(e, -1.0, xref));
  PetscCall(VecNorm(e, NORM_2, &enorm));
  PetscCall(VecDestroy(&e));
  PetscCall(VecNorm(xref, NORM_2, &xnorm));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s CG + Jacobi: %" PetscInt_FMT " iterations (%s), %.3f s (%.2f ms each); true residual %.2e relative, error against xref %.2e relative\n", entry, its, KSPConvergedReasons[reason], t1 - t0, 1e3 * (t1 - t0) / PetscMax(its, 1), (double)(rnorm / bnorm), (double)(enorm / xnorm)));
  PetscCheck(reason > 0 && rnorm <= 10 * rtol * bnorm, PETSC_COMM_SELF, PETSC_ERR_NOT_CONVERGED, "%s: CG + Jacobi did not reach -cg_rtol %g (%s, true residual %g relative)", entry, (double)rtol, KSPConvergedReasons[reason], (double)(rnorm / bnorm));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode TimeType(Mat Aref, const char *entry, PetscInt reps, Vec xref, Vec yref, Result *res)
{
  Mat            A;
  Vec            x, y;
  cudaStream_t   stream = NULL;
  cudaEvent_t    e0 = NULL, e1 = NULL;
  float          ms;
  PetscLogDouble t0, t1, tr;
  PetscInt       m, n, nnz;
  MatInfo        info;
  PetscBool      ours, persistx = PETSC_FALSE, cg = PETSC_FALSE;
  char           type[64], prefix[64] = "";
  char          *at;

  PetscFunctionBegin;
  PetscCall(PetscStrncpy(type, entry, sizeof(type)));
  if ((at = strchr(type, '@'))) { /* type@name: the entry's own options, under name_ */
    *at = 0;
    PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "%s_", at + 1));
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-l2_persist_x", &persistx, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-cg", &cg, NULL));
  PetscCall(MatGetSize(Aref, &m, &n));
  PetscCall(MatGetInfo(Aref, MAT_LOCAL, &info));
  nnz = (PetscInt)info.nz_used;
  if (gpu) {
    PetscCall(PetscGetCurrentCUDAStream(&stream));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, n, &x));
    PetscCall(VecCreateSeqCUDA(PETSC_COMM_SELF, m, &y));
  } else {
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, n, &x));
    PetscCall(VecCreateSeq(PETSC_COMM_SELF, m, &y));
  }
  PetscCall(VecCopy(xref, x));

  /* first product: conversion, upload, build of the format's layout */
  PetscCall(PetscTime(&t0));
  if (inplace) { /* its reference product is already taken; nothing reads it as MATAIJ after this */
    PetscCall(MatConvert(Aref, type, MAT_INPLACE_MATRIX, &Aref));
    A = Aref;
  } else PetscCall(MatConvert(Aref, type, MAT_INITIAL_MATRIX, &A));
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
      if (!inplace) PetscCall(MatDestroy(&A));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    if (ierr) { /* the error's own message, which the return handler kept */
      PetscCall(PetscErrorMessage(ierr, NULL, &why));
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s failed at its first product: %s\n", entry, why ? why : "(no message)"));
    }
    PetscCall(ierr);
  }
  PetscCall(Sync());
  PetscCall(PetscTime(&t1));
  res->first = t1 - t0;
  {
    Vec       d;
    PetscReal e, r;
    PetscCall(VecDuplicate(yref, &d));
    PetscCall(VecCopy(y, d));
    PetscCall(VecAXPY(d, -1.0, yref));
    PetscCall(VecNorm(d, NORM_2, &e));
    PetscCall(VecNorm(yref, NORM_2, &r));
    res->err = e / r;
    PetscCall(VecDestroy(&d));
  }
  if (gpu && persistx) { /* experiment: ask L2 to keep x (the gathered vector) resident */
    const PetscScalar  *dx;
    int                 dev, maxpersist, maxwindow;
    cudaStreamAttrValue attr;
    size_t              bytes = (size_t)n * sizeof(PetscScalar);

    PetscCall(VecCUDAGetArrayRead(x, &dx));
    PetscCallCUDA(cudaGetDevice(&dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&maxpersist, cudaDevAttrMaxPersistingL2CacheSize, dev));
    PetscCallCUDA(cudaDeviceGetAttribute(&maxwindow, cudaDevAttrMaxAccessPolicyWindowSize, dev));
    PetscCallCUDA(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, PetscMin(bytes, (size_t)maxpersist)));
    memset(&attr, 0, sizeof(attr));
    attr.accessPolicyWindow.base_ptr  = (void *)dx;
    attr.accessPolicyWindow.num_bytes = PetscMin(bytes, (size_t)maxwindow);
    attr.accessPolicyWindow.hitRatio  = (float)PetscMin(1.0, (double)maxpersist / (double)attr.accessPolicyWindow.num_bytes);
    attr.accessPolicyWindow.hitProp   = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp  = cudaAccessPropertyStreaming;
    PetscCallCUDA(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr));
    PetscCall(VecCUDARestoreArrayRead(x, &dx));
  }
  for (PetscInt k = 0; k < 10; k++) PetscCall(MatMult(A, x, y)); /* warm-up */
  if (gpu) {
    PetscCallCUDA(cudaEventCreate(&e0));
    PetscCallCUDA(cudaEventCreate(&e1));
    PetscCallCUDA(cudaEventRecord(e0, stream));
    for (PetscInt k = 0; k < reps; k++) PetscCall(MatMult(A, x, y));
    PetscCallCUDA(cudaEventRecord(e1, stream));
    PetscCallCUDA(cudaEventSynchronize(e1));
    PetscCallCUDA(cudaEventElapsedTime(&ms, e0, e1));
    res->mult = ms / 1000.0 / reps;
    if (persistx) { /* back to normal caching for the next type */
      cudaStreamAttrValue attr;

      memset(&attr, 0, sizeof(attr));
      PetscCallCUDA(cudaStreamSetAttribute(stream, cudaStreamAttributeAccessPolicyWindow, &attr));
      PetscCallCUDA(cudaCtxResetPersistingL2Cache());
    }
  } else {
    PetscCall(PetscTime(&t0));
    for (PetscInt k = 0; k < reps; k++) PetscCall(MatMult(A, x, y));
    PetscCall(PetscTime(&t1));
    res->mult = PetscMax(t1 - t0, 1e-9) / reps; /* a clock tick must not make the rates infinite */
  }

  if (cg) PetscCall(SolveCG(A, entry, xref, yref, y)); /* before the value changes below make A unsymmetric */

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
    PetscCall(Sync());
    PetscCall(PetscTime(&t0));
    PetscCall(MatMult(A, x, y));
    PetscCall(Sync());
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
  if (gpu) {
    PetscCallCUDA(cudaEventDestroy(e0));
    PetscCallCUDA(cudaEventDestroy(e1));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  if (!inplace) PetscCall(MatDestroy(&A));
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
  PetscBool    file, set, csvnew = PETSC_FALSE;
  double       minbytes;
  char         csv[PETSC_MAX_PATH_LEN] = "", name[PETSC_MAX_PATH_LEN] = "";
  PetscReal    peakgbs = 4285; /* GB/s: the H200's measured device-to-device copy rate */
  FILE        *fcsv    = NULL;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-petscspmv_layout_min_products", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-petscspmv_layout_min_products", "0"));
  PetscCall(PetscSpmvInitializePackage());
  {
    int ndevices = 0;

    /* no driver, a stub driver or no device: no GPU, not an error (as the library decides) */
    if (cudaGetDeviceCount(&ndevices) != cudaSuccess) ndevices = 0;
    (void)cudaGetLastError();
    gpu = (PetscBool)(ndevices > 0);
    if (!gpu) PetscCall(PetscPrintf(PETSC_COMM_SELF, "no CUDA device: host vectors, host reference kernels, timed with PetscTime() (not GPU numbers)\n"));
  }
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", matrix, sizeof(matrix), NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-csv", csv, sizeof(csv), NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-name", name, sizeof(name), NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-peak_gbs", &peakgbs, NULL));
  PetscCheck(peakgbs > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-peak_gbs %g must be positive", (double)peakgbs);
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-types", types, &ntypes, &set));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-inplace", &inplace, NULL));
  PetscCheck(!inplace || (set && ntypes == 1), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "-inplace converts the matrix itself: give one type with -types");
  if (!set) {
    ntypes = 3;
    PetscCall(PetscStrallocpy(MATAIJCUSPARSE, &types[0]));
    PetscCall(PetscStrallocpy(MATSELLCUDA, &types[1]));
    PetscCall(PetscStrallocpy(MATBRC, &types[2]));
  }
  {
    const char *gens[] = {"laplace2d", "laplace3d27", "ex19", "elastic3d", "powerlaw", "circuit", "rmat", "laplace3d"};
    PetscInt    gen    = -1;
    PetscBool   mtx, bin, exists, match;

    for (PetscInt g = 0; g < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(gens) && gen < 0; g++) {
      PetscCall(PetscStrcmp(matrix, gens[g], &match));
      if (match) gen = g;
    }
    PetscCall(PetscStrendswith(matrix, ".mtx", &mtx));
    PetscCall(PetscTestFile(matrix, 'r', &exists));
    /* anything that is not a generator's name is a file: .mtx Matrix Market, all else PETSc binary */
    file = (PetscBool)(gen < 0);
    bin  = (PetscBool)(file && !mtx);
    PetscCheck(!file || exists, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "-matrix %s: neither a generator (laplace2d, laplace3d27, ex19, elastic3d, powerlaw, circuit, rmat, laplace3d) nor a readable file (.mtx Matrix Market, otherwise PETSc binary)", matrix);
    if (mtx) PetscCall(MatLoadMatrixMarket(PETSC_COMM_SELF, matrix, MATSEQAIJ, &Aref));
    else if (bin) {
      PetscViewer viewer;

      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, matrix, FILE_MODE_READ, &viewer));
      PetscCall(MatCreate(PETSC_COMM_SELF, &Aref));
      PetscCall(MatSetType(Aref, MATSEQAIJ)); /* whatever type wrote it: the reference is host AIJ */
      PetscCall(MatLoad(Aref, viewer));
      PetscCall(PetscViewerDestroy(&viewer));
    } else {
      switch (gen) {
      case 0:
        PetscCall(StencilCSR(2, n > 0 ? n : 4096, PETSC_FALSE, 1, &m, &ai, &aj, &aa));
        break;
      case 1:
        PetscCall(StencilCSR(3, n > 0 ? n : 150, PETSC_TRUE, 1, &m, &ai, &aj, &aa));
        break;
      case 2:
        PetscCall(StencilCSR(2, n > 0 ? n : 1400, PETSC_FALSE, 4, &m, &ai, &aj, &aa)); /* DMDA star stencil, 4 fields */
        break;
      case 3:
        PetscCall(StencilCSR(3, n > 0 ? n : 70, PETSC_TRUE, 3, &m, &ai, &aj, &aa)); /* 27-point box, 3 displacements: 81 per row */
        break;
      case 4:
        m = n > 0 ? n : 3000000;
        PetscCall(PowerLawCSR(m, &ai, &aj, &aa));
        break;
      case 5:
        m = n > 0 ? n : 4000000;
        PetscCall(CircuitCSR(m, &ai, &aj, &aa));
        break;
      case 7: /* KSP ex45's 7-point star (ex45 keeps only the diagonal in boundary rows); -n 680 is past 2^31 nonzeros */
        PetscCall(StencilCSR(3, n > 0 ? n : 200, PETSC_FALSE, 1, &m, &ai, &aj, &aa));
        for (PetscInt i = 0; i < m; i++) /* the Dirichlet Laplacian's values (6, -1): SPD, for -cg */
          for (PetscInt q = ai[i]; q < ai[i + 1]; q++) aa[q] = aj[q] == i ? 6.0 : -1.0;
        break;
      case 6: {
        PetscInt ef = 16;

        PetscCall(PetscOptionsGetInt(NULL, NULL, "-rmat_edgefactor", &ef, NULL));
        PetscCall(RmatCSR(n > 0 ? n : 21, ef, &m, &ai, &aj, &aa));
      }
      }
      PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, ai, aj, aa, &Aref));
    }
    if (!name[0]) { /* the CSV's label: the generator, or the file's name without directory and extension */
      const char *base = strrchr(matrix, '/');
      char       *dot;

      PetscCall(PetscStrncpy(name, base ? base + 1 : matrix, sizeof(name)));
      if (file && (dot = strrchr(name, '.')) && dot != name) *dot = 0;
    }
  }
  PetscCall(MatGetSize(Aref, &m, &ncols));
  {
    char      save[PETSC_MAX_PATH_LEN] = "";
    PetscBool saveset;

    PetscCall(PetscOptionsGetString(NULL, NULL, "-save", save, sizeof(save), &saveset));
    if (saveset) {
      PetscViewer viewer;

      PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, save, FILE_MODE_WRITE, &viewer));
      PetscCall(MatView(Aref, viewer));
      PetscCall(PetscViewerDestroy(&viewer));
    }
  }
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
  if (csv[0]) {
    PetscBool exists;

    PetscCall(PetscTestFile(csv, 'r', &exists));
    PetscCall(PetscFOpen(PETSC_COMM_SELF, csv, "a", &fcsv));
    /* the header only at the top of a new or empty file: the suite appends every matrix's lines to one file */
    if (exists) PetscCheck(fseek(fcsv, 0, SEEK_END) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "-csv %s: cannot seek to its end", csv);
    csvnew = (PetscBool)(!exists || ftell(fcsv) == 0);
    if (csvnew) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fcsv, "matrix,rows,nnz,type,time_us,gflops,gbs,eta,bytes_per_nnz,first_ms,scale_ms,setval_ms,relerr,refused\n"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10s %10s %10s %12s %12s %12s %12s %10s %7s\n", "type", "time(us)", "GFLOP/s", "GB/s", "bytes/nnz", "first(ms)", "scale(ms)", "setval(ms)", "rel.err", "eta"));
  for (PetscInt t = 0; t < ntypes; t++) {
    Result r = {0};
    double gbs, eta;

    PetscCall(TimeType(Aref, types[t], reps, xref, yref, &r));
    if (r.refused) {
      /* a refused type still gets its line, so that the report can say which matrices each type refused */
      if (fcsv) PetscCall(PetscFPrintf(PETSC_COMM_SELF, fcsv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,,,,,,,,,,1\n", name, m, nnz, types[t]));
      continue;
    }
    char scale[32] = "n/a", setval[32] = "n/a";
    if (r.scale >= 0) PetscCall(PetscSNPrintf(scale, sizeof(scale), "%.2f", r.scale * 1e3));
    if (r.setval >= 0) PetscCall(PetscSNPrintf(setval, sizeof(setval), "%.2f", r.setval * 1e3));
    gbs = minbytes / r.mult / 1e9;
    eta = gbs / peakgbs; /* the fraction of the device's copy bandwidth the minimal traffic reaches */
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10.1f %10.2f %10.1f %12.2f %12.2f %12s %12s %10.1e %7.3f\n", types[t], r.mult * 1e6, 2.0 * nnz / r.mult / 1e9, gbs, r.storedbytes / nnz, r.first * 1e3, scale, setval, (double)r.err, eta));
    if (fcsv) {
      /* scale/setval are empty where they do not apply (types not based on AIJ), as n/a in the table */
      if (r.scale < 0) scale[0] = 0;
      if (r.setval < 0) setval[0] = 0;
      PetscCall(PetscFPrintf(PETSC_COMM_SELF, fcsv, "%s,%" PetscInt_FMT ",%" PetscInt_FMT ",%s,%.3f,%.3f,%.3f,%.4f,%.3f,%.3f,%s,%s,%.3e,0\n", name, m, nnz, types[t], r.mult * 1e6, 2.0 * nnz / r.mult / 1e9, gbs, eta, r.storedbytes / nnz, r.first * 1e3, scale, setval,
                             (double)r.err));
      PetscCall(PetscFFlush(fcsv)); /* a later type's failure or a timeout keeps the lines written so far */
    }
    PetscCheck(r.err < (sizeof(PetscReal) == 4 ? 1e-4 : 1e-10), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s product differs from MATAIJ: relative error %g", types[t], (double)r.err);
  }
  if (fcsv) PetscCall(PetscFClose(PETSC_COMM_SELF, fcsv));
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
