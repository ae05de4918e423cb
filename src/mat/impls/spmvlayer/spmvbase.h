#pragma once
/*
  The layer's two lowest floors, all a package that never touches a format needs (the solver
  package MATSOLVERSPMVFACTOR includes only this):
  - device services (device.cu): memory, copies, element-wise kernels, on a cudaStream_t passed as void *;
  - aijcusparse access (cusparse.c): aijcusparse's device CSR of our matrices (whose type name is
    not aijcusparse's), solves staged through device vectors, host values brought up to date;
  - matrices made on host CSR arrays they own (base/oncsr.c), and a device CSR copied into such arrays;
  - entries sent to the owners of their rows (base/owners.c).
*/
#include <petscmat.h>

/* ---- floor 0: device services (device.cu); all take a cudaStream_t as void * ---- */
/* a CSR on the device with int indices (a NULL where a phase reads no values) */
typedef struct {
  PetscInt           m, n, nnz;
  const int         *i, *j;
  const PetscScalar *a;
} MatSpmvDeviceCSR;
PETSC_INTERN PetscErrorCode MatSpmvCUDAAvailable(PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAGetStream(void **);
PETSC_INTERN PetscErrorCode MatSpmvCUDAMalloc(void **, size_t);
/* -petscspmv_fail_device_alloc N, for tests: the N-th of our device allocations (MatSpmvCUDAMalloc(), a
   thrust call's temporary storage) fails as out of device memory would; 0: none */
PETSC_INTERN PetscInt  MatSpmvFailDeviceAlloc;
PETSC_INTERN PetscBool MatSpmvCUDAAllocFails(void);
PETSC_INTERN PetscInt  MatSpmvCUDAAllocCount(void);  /* the allocations counted so far while the hook is set */
PETSC_INTERN size_t    MatSpmvCUDALayoutBytes(void); /* sizeof the layout struct as the CUDA files see it (must be C's) */
/* fn(ctx) with a C++ exception thrown under it (thrust in PETSc's aijcusparse, outside any catch there)
   made PETSc's error (out of device memory: PETSC_ERR_MEM) instead of the end of the process; what: the
   operation, for the message */
PETSC_INTERN PetscErrorCode MatSpmvCUDACatch(PetscErrorCode (*)(void *), void *, const char *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAFree(void *);
/* host <-> device copies on the given stream, PETSc's where it is NULL; the copy to the host waits for it */
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyToDevice(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyToHost(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACopyOnDevice(void *, const void *, size_t, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDASynchronize(void *);
/* waits for all of the device's work of this process, whatever its stream */
PETSC_INTERN PetscErrorCode MatSpmvCUDASynchronizeDevice(void);
/* a stream beside PETSc's, of the highest priority, ordered with others by events only */
PETSC_INTERN PetscErrorCode MatSpmvCUDAStreamCreate(void **);
PETSC_INTERN PetscErrorCode MatSpmvCUDAStreamDestroy(void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAEventCreate(void **);
PETSC_INTERN PetscErrorCode MatSpmvCUDAEventDestroy(void *);
/* stream waiter's later work waits for the work queued on stream signaller so far (NULL: PETSc's),
   through event */
PETSC_INTERN PetscErrorCode MatSpmvCUDAStreamWait(void *, void *, void *);
/* the host waits for the work before the event's last record (none: returns at once) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAEventSynchronize(void *);
/* the current device's UUID: processes that share a GPU have the same */
PETSC_INTERN PetscErrorCode MatSpmvCUDADeviceUUID(char[16]);
/* page-locked host memory (copies from and to it run asynchronously); blocks given back are kept for
   reuse up to the cache's bound (-petscspmv_pinned_cache), released at the package's end */
PETSC_INTERN PetscErrorCode MatSpmvCUDAHostAlloc(void **, size_t);
PETSC_INTERN PetscLogEvent  MATSPMV_PinnedNew; /* a new block page-locked (registered by base/oncsr.c) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAHostFree(void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAPinnedCacheSetMax(size_t);
PETSC_INTERN PetscErrorCode MatSpmvCUDAPinnedCacheRelease(void);
/* dst[k] = src[map[k]], or 0 where map[k] < 0, for k < n */
PETSC_INTERN PetscErrorCode MatSpmvCUDAGather(PetscInt, const int *, const PetscScalar *, PetscScalar *, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAGather64(PetscInt, const long long *, const PetscScalar *, PetscScalar *, void *);
/* y[crow[k]] += t[k] for k < n */
PETSC_INTERN PetscErrorCode MatSpmvCUDAAddRows(PetscInt, const int *, const PetscScalar *, PetscScalar *, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAZero(PetscScalar *, PetscInt, void *);
/* the lengths of a CSR's nonempty rows: how many, the longest, their mean and standard deviation */
typedef struct {
  PetscInt  nonempty, longest;
  PetscReal mean, stddev;
  PetscReal sum, sumsq; /* of the lengths and their squares: whole numbers, exact below 2^53 */
} MatSpmvRowStats;
/* MatSpmvRowStats of the m rows at device offsets d_i */
PETSC_INTERN PetscErrorCode MatSpmvCUDARowLengthStats(PetscInt, const int *, MatSpmvRowStats *, void *);
/* MatSpmvRowStats of A^T's n rows, counted from A's nnz device column indices */
PETSC_INTERN PetscErrorCode MatSpmvCUDAColumnLengthStats(PetscInt, PetscInt, const int *, MatSpmvRowStats *, void *);
/* A + alpha I on the device CSR (m rows, m at most the columns): *shifted false, nothing changed,
   where a row has no diagonal entry */
PETSC_INTERN PetscErrorCode MatSpmvCUDAShift(PetscInt, const int *, const int *, PetscScalar, PetscScalar *, PetscBool *, void *);
/* Y += alpha X on device CSRs (ya: Y's values) where X's pattern is within Y's; else *subset false, Y untouched */
PETSC_INTERN PetscErrorCode MatSpmvCUDAAXPYSubset(const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, PetscScalar, PetscScalar *, PetscBool *, void *);
/* y = a y (x NULL) or y += a x, n values on the device (a 64-bit count: cuBLAS's, aijcusparse's MatScale() and MatAXPY(), are 32-bit) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAScaleValues(PetscCount, PetscScalar, const PetscScalar *, PetscScalar *, void *);
/* diag(l) A diag(r) on the device CSR (m rows; l or r NULL: none) */
PETSC_INTERN PetscErrorCode MatSpmvCUDADiagonalScale(PetscInt, const int *, const int *, const PetscScalar *, const PetscScalar *, PetscScalar *, void *);
/* what the graph of a matrix is made of: |a| (absval), A + A^T's pattern (symmetrize), scaled */
typedef struct {
  PetscBool absval, symmetrize, scale;
} MatSpmvGraphKind;
/* a graph made on the device: m rows, nnz entries in new device arrays its receiver frees */
typedef struct {
  PetscInt     m, nnz;
  int         *i, *j;
  PetscScalar *a;
} MatSpmvDeviceGraph;
/* the scalar graph of the square device CSR A of block size bs (real scalars; graph.cu): with bs > 1
   first collapsed to m/bs rows (the sum of |a| over each block); A's values (absolute with absval),
   plus A^T's (symmetrize: the union of both patterns), scaled by diag(|g(r, r)|^(-1/2)) on both
   sides (a zero or missing diagonal gives 0); at most 2 nnz entries */
PETSC_INTERN PetscErrorCode MatSpmvCUDAGraph(const MatSpmvDeviceCSR *, PetscInt, MatSpmvGraphKind, MatSpmvDeviceGraph *, void *);
/* s[r] = |g(r, r)|^(-1/2) of a square graph G (0 where the diagonal entry is zero or missing), the scale above */
PETSC_INTERN PetscErrorCode MatSpmvCUDAGraphScales(const MatSpmvDeviceGraph *, PetscScalar *, void *);
/* a process's COO entries for an MPI matrix of N columns (coo.cu): n of them in local rows (rstart + 0..m-1)
   and global columns, repeated or not (arrays of int-sized PetscInt, on the host, or on the device where
   device); its diagonal block's columns cstart..cend-1 */
typedef struct {
  PetscCount      n;
  PetscInt        m, rstart, cstart, cend, N;
  const PetscInt *i, *j;
  PetscBool       device;
} MatSpmvCOOEntries;
/* those entries sorted on the device: nu distinct ones, nd of them in the diagonal block (CSR di, dj:
   local columns) and no in the off-diagonal one (oi, oj: global columns), each block in row order and its
   columns ascending in a row, oj rewritten to places in garray (ng ghost columns, global, ascending:
   MPIAIJ's off-diagonal block and ghost map, made on the device); distinct entry u sums the entries
   perm[jmap[u] .. jmap[u + 1] - 1] into the diagonal block's value target[u] (>= 0) or the off-diagonal
   one's -1 - target[u] */
typedef struct {
  PetscInt m, n, nu, nd, no, ng;
  int     *di, *dj, *oi, *oj, *garray, *jmap, *perm, *target;
} MatSpmvCOODevice;
/* nothing made (*inrange false) where an entry is outside the rows or columns */
PETSC_INTERN PetscErrorCode MatSpmvCUDACOOBuild(const MatSpmvCOOEntries *, MatSpmvCOODevice *, PetscBool *, void *);
/* a process's rows of an MPI matrix merged into one device CSR of global columns (mpiproduct.cu): the
   diagonal block d's (columns + cstart), then the off-diagonal block o's (NULL: none; columns through the
   device ghost map garray), row by row; src says where each value comes from, a its values once gathered */
typedef struct {
  PetscInt     m, nnz;
  int         *i, *j, *src;
  PetscScalar *a;
} MatSpmvMergedRows;
PETSC_INTERN PetscErrorCode MatSpmvCUDAMergeRows(const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, const int *, PetscInt, MatSpmvMergedRows *, void *);
/* the merged rows' values from the blocks' device values */
PETSC_INTERN PetscErrorCode MatSpmvCUDAMergeValues(MatSpmvMergedRows *, const PetscScalar *, const PetscScalar *, void *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAMergedRowsDestroy(MatSpmvMergedRows *);
/* a device CSR's entries as COO: rows rstart + r, its columns as they are (device arrays of nnz) */
PETSC_INTERN PetscErrorCode MatSpmvCUDACSRToCOO(const MatSpmvDeviceCSR *, PetscInt, int *, int *, void *);
/* MPIAIJ's ghost map of an off-diagonal block on the device: the nnz global columns cols (device) rewritten
   to their places among the distinct ones, which come back in *garray (device, *ng ascending; NULL where
   none); what MatSetUpMultiply_MPIAIJ() does on the host with a hash */
PETSC_INTERN PetscErrorCode MatSpmvCUDAGhostMap(PetscInt, int *, int **, PetscInt *, void *);
/* the block CSRs and the ghost map freed (the matrix made on their host copies has its own), then everything */
PETSC_INTERN PetscErrorCode MatSpmvCUDACOOFreePattern(MatSpmvCOODevice *);
PETSC_INTERN PetscErrorCode MatSpmvCUDACOODestroy(MatSpmvCOODevice *);
/* the entries' values v (device, in the order given to the build) summed into the blocks' device values
   da and oa, inserted or added */
PETSC_INTERN PetscErrorCode MatSpmvCUDACOOValues(const MatSpmvCOODevice *, const PetscScalar *, PetscBool, PetscScalar *, PetscScalar *, void *);
/* MatSpmvWideShare() of the device CSR (m rows, d_i, d_j, longest row) in its natural order, on the device */
PETSC_INTERN PetscErrorCode MatSpmvCUDAWideShare(PetscInt, const int *, const int *, PetscInt, PetscReal *, void *);
/* the modules of the n kernels (host addresses of __global__ functions; NULL: none) loaded on a
   helper thread, each once per process; MatSpmvCUDAPreloadWait() joins the threads */
PETSC_INTERN PetscErrorCode MatSpmvCUDAPreload(PetscInt, const void *const *);
PETSC_INTERN PetscErrorCode MatSpmvCUDAPreloadWait(void);
/* a kernel of the layer's device module (device.cu) */
PETSC_INTERN const void *MatSpmvCUDALayerKernel(void);
/* n device keys (0 to maxkey) and their values sorted by key, stable */
PETSC_INTERN PetscErrorCode MatSpmvCUDASortPairs(PetscInt, int *, int *, int, void *);
/* *hot: the nonzeros in the max(1, n / 100) columns of op(A) (A's pattern; transpose: A^T, whose n
   columns' counts are A's row lengths) named most often; where they are at least minshare of nnz, the
   n columns ordered that way, most first (stable), in a new device array *d_perm (else NULL) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAColumnFrequency(const MatSpmvDeviceCSR *, PetscBool, PetscReal, int **, PetscInt *, void *);
/* A's rows (m x n pattern) with their columns renumbered: column c becomes its position in d_perm
   (of n), each row sorted by the new columns: new device arrays *d_jnew of the columns and *d_pos of
   the CSR position each came from; with d_rows (not NULL) row r of the result is row d_rows[r], at
   the offsets d_inew */
PETSC_INTERN PetscErrorCode MatSpmvCUDARenumberColumns(const MatSpmvDeviceCSR *, const int *, const int *, const int *, int **, int **, void *);
/* A^T's CSR from A's device CSR (m x n, nnz; values not read): new device arrays of its row offsets
   (n + 1), columns and the position in A's CSR of each entry */
PETSC_INTERN PetscErrorCode MatSpmvCUDATransposeCSR(const MatSpmvDeviceCSR *, int **, int **, int **, void *);
/* map[k] = pos[map[k]] where map[k] >= 0 (n entries, on the device) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAComposeMap(PetscInt, int *, const int *, void *);
/* whether the device map slot2csr of n slots is the identity */
PETSC_INTERN PetscErrorCode MatSpmvCUDAIsIdentity(PetscInt, const int *, PetscBool *, void *);
/* host PetscInt copy of a device int array (PetscFree it) */
PETSC_INTERN PetscErrorCode MatSpmvCUDADownloadInt(PetscInt **, const int *, PetscInt);
/* upload host array n*size bytes to a new device array (NULL when n is 0) */
PETSC_INTERN PetscErrorCode MatSpmvCUDAUpload(void **, const void *, size_t);

/* host array of PetscInt -> new device array of int (the caller checked the sizes) */
static inline PetscErrorCode MatSpmvCUDAUploadInt(int **d, const PetscInt *h, PetscInt n)
{
  int *tmp;

  PetscFunctionBegin;
  if (sizeof(PetscInt) == sizeof(int)) { /* same representation: no conversion */
    PetscCall(MatSpmvCUDAUpload((void **)d, h, n * sizeof(int)));
  } else { /* 64-bit PetscInt: each value checked, a wrapped index would read out of bounds */
    PetscBool fits = PETSC_TRUE;

    PetscCall(PetscMalloc1(n, &tmp));
    for (PetscInt k = 0; k < n; k++) {
      tmp[k] = (int)h[k];
      fits   = (PetscBool)(fits && (PetscInt)tmp[k] == h[k]);
    }
    if (fits) PetscCall(MatSpmvCUDAUpload((void **)d, tmp, n * sizeof(int)));
    PetscCall(PetscFree(tmp));
    PetscCheck(fits, PETSC_COMM_SELF, PETSC_ERR_SUP, "An index of a device array is past the 32 bits the formats' kernels take: split the matrix over more MPI processes");
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- floor 1: aijcusparse access (cusparse.c) ---- */

/* Our matrices among four (NULL allowed) carry their base's name (seqaijcusparse, seqaij) from
   MatSpmvAliasBegin() to MatSpmvAliasEnd(alias, ierr), which gives them back and returns ierr, the
   error of the call in between: aijcusparse's kernels check their operands' names */
typedef struct {
  Mat   mat[4];
  char *name[4];
} MatSpmvAlias;
PETSC_INTERN PetscErrorCode MatSpmvAliasBegin(MatSpmvAlias *, Mat, Mat, Mat, Mat);
PETSC_INTERN PetscErrorCode MatSpmvAliasEnd(MatSpmvAlias *, PetscErrorCode);
/* whether A's CSR values are kept on the device by aijcusparse: one of our sequential matrices on the
   aijcusparse base, or a MATSEQAIJCUSPARSE, with a GPU visible */
PETSC_INTERN PetscErrorCode MatSpmvValuesOnDevice(Mat, PetscBool *);
/* whether our kernels may work on A's values in place in that device CSR: also not bound to the
   CPU, and PetscInt is int */
PETSC_INTERN PetscErrorCode MatSpmvDeviceCSRUsable(Mat, PetscBool *);
/* aijcusparse's device row offsets (uncompressed) and column indices of A, and its device values */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetIJ(Mat, const int **, const int **);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetValues(Mat, const PetscScalar **);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSERestoreValues(Mat, const PetscScalar **);
/* the same for writing (aijcusparse then counts its device values as the current ones) */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetArray(Mat, PetscScalar **);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSERestoreArray(Mat, PetscScalar **);
/* A's nnz device values set from device memory (A's pattern uploaded first where it is not there) */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSESetValues(Mat, PetscInt, const PetscScalar *, void *);
/* aijcusparse's upload of A's newer host CSR (ours or aijcusparse's) now, where the host's is newer */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEUpload(Mat);
/* X's device CSR (values where asked; with empty_rows, a block without entries gets those row offsets
   and no device CSR is asked of it), given back by MatSpmvCUSPARSERestoreCSR() */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEGetCSR(Mat, PetscBool, const int *, MatSpmvDeviceCSR *);
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSERestoreCSR(Mat, MatSpmvDeviceCSR *);
/* aijcusparse's explicit transpose of X formed now (X's MAT_FORM_EXPLICIT_TRANSPOSE set) */
PETSC_INTERN PetscErrorCode MatSpmvCUSPARSEFormTranspose(Mat);
/* bring the host CSR values of A up to date (aijcusparse copies them back from the device if needed):
   before AIJ code that reads them in place */
PETSC_INTERN PetscErrorCode MatSpmvUpdateHostValues(Mat);
/* F's solve (a solve on device vectors) applied to b, x: host ones staged through work vectors kept with F */
/* A's CUDA work vector of a layout, composed under a key, made at the first use */
PETSC_INTERN PetscErrorCode MatSpmvGetDeviceWorkVec(Mat, const char *, PetscLayout, Vec *);
PETSC_INTERN PetscErrorCode MatSpmvSolveStaged(Mat, Vec, Vec, PetscErrorCode (*)(Mat, Vec, Vec));
/* LU and ILU transpose solves by a second, fresh factorization of A (made at the first transpose solve after
   each numeric factorization): record the symbolic phase's orderings (NULL: natural) and settings, the numeric
   phase's A and settings; count the numeric phases; solve with package pkg */
PETSC_INTERN PetscErrorCode MatSpmvTransposeFactorSymbolic(Mat, IS, IS, const MatFactorInfo *);
PETSC_INTERN PetscErrorCode MatSpmvTransposeFactorNumeric(Mat, Mat, const MatFactorInfo *);
PETSC_INTERN PetscErrorCode MatSpmvTransposeFactorNumerics(Mat, PetscInt *);
PETSC_INTERN PetscErrorCode MatSpmvTransposeFactorSolve(Mat, MatSolverType, Vec, Vec);

/* ---- floor 1: matrices on host CSR arrays (base/oncsr.c) ---- */
/* a CSR's host arrays, the three from one PetscMalloc3() */
typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} MatSpmvHostCSR;
/* A MATSEQAIJ (offdiag NULL) or MATMPIAIJ (offdiag: its off-diagonal block, columns global) of m local
   rows and n local columns made on the host CSR arrays of diag (and offdiag), which the matrix then
   owns and frees. Convert it in place to another type */
PETSC_INTERN PetscErrorCode MatSpmvCreateAIJOnCSR(MPI_Comm, PetscInt, PetscInt, const MatSpmvHostCSR *, const MatSpmvHostCSR *, Mat *);
/* the log events of the matrices made from the device (and of new page-locked memory) */
PETSC_INTERN PetscErrorCode MatSpmvRegisterOnCSREvents(void);
/* a MATSEQAIJ copied from a device CSR on stream, in pinned host memory it owns. Values NULL: the caller
   writes them on the device, and the host's are zeros mapped lazily where lazy (no host code is
   expected to read them: aijcusparse would copy them down into pageable memory), else left unset in
   the pinned memory (aijcusparse copies them down there at the device's rate) */
PETSC_INTERN PetscErrorCode MatSpmvCreateAIJFromDevice(const MatSpmvDeviceCSR *, PetscBool, void *, Mat *);
/* whether the product result C made from the device takes lazy host values above (its product type) */
PETSC_INTERN PetscErrorCode MatSpmvProductHostValuesLazy(Mat, PetscBool *);
/* a MATMPIAIJ of N global columns copied from device blocks as above: the diagonal block diag and the
   off-diagonal block off (NULL: empty), whose columns are places in the ghost map garray (off->n global
   columns, ascending; device, NULL where off->n is 0); MPIAIJ's assembly then makes only the ghost
   scatter, not the map (a host hash over the off-diagonal block) */
PETSC_INTERN PetscErrorCode MatSpmvCreateMPIAIJFromDevice(MPI_Comm, PetscInt, const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, const int *, PetscBool, void *, Mat *);
PETSC_INTERN PetscErrorCode MatSpmvNoInodeBegin(PetscBool *);
PETSC_INTERN PetscErrorCode MatSpmvNoInodeEnd(PetscBool);
/* A device CSR (m rows, nnz entries) copied on stream (NULL: PETSc's) into new host arrays
   (PetscMalloc3(): i, j, a), waited for; the device's are left */
PETSC_INTERN PetscErrorCode MatSpmvCSRCopyToHost(const MatSpmvDeviceCSR *, void *, PetscInt **, PetscInt **, PetscScalar **);

/* ---- floor 1: entries sent to the owners of their rows (base/owners.c) ---- */
/* The SF whose n leaves are this process's entries, rows[k] global rows of map, and whose *nrecv roots
   are the slots this process receives its rows' entries in (each sender's together, senders by rank):
   arrays move to the owners by PetscSFReduceBegin/End(..., MPI_REPLACE). Collective */
PETSC_INTERN PetscErrorCode MatSpmvSFCreateToOwners(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], PetscSF *, PetscInt *);
/* The n entries (rows[k], cols[k], vals[k]), rows global rows of map, sent to the owners of their rows,
   once: this process's *nrecv received entries in new arrays (each sender's together, senders by rank;
   freed with PetscFree3(*rrows, *rcols, *rvals)). Collective */
PETSC_INTERN PetscErrorCode MatSpmvSendToOwners(MPI_Comm, PetscLayout, PetscInt, const PetscInt[], const PetscInt[], const PetscScalar[], PetscInt *, PetscInt **, PetscInt **, PetscScalar **);

/* ---- the plans of the kernels that run chains of dependent rows in one launch (MATSOLVERSPMVFACTOR's solves,
   the SOR sweeps; host code) ---- */
/* their cost model of a unit of rows: levels x (1 + (unit - 1) x w / MATSPMV_UNIT_ENTRIES), w the entries
   a row has before its diagonal (the fit: spmvfactor/symbolic.c, MatSpmvFactorChooseUnit()) */
#define MATSPMV_UNIT_ENTRIES 266.0
/* units sorted by their dependency levels (1..nlevels), a stable counting sort; reverse: the units
   from the last (the backward or upper triangle's order within a level) */
static inline PetscErrorCode MatSpmvUnitsByLevel(PetscInt nunits, PetscBool reverse, const PetscInt *level, PetscInt nlevels, PetscInt *order)
{
  PetscInt *first;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(nlevels + 1, &first));
  for (PetscInt u = 0; u < nunits; u++) first[level[u]]++;
  for (PetscInt l = 1; l <= nlevels; l++) first[l] += first[l - 1];
  for (PetscInt v = nunits - 1; v >= 0; v--) {
    const PetscInt u         = reverse ? nunits - 1 - v : v;
    order[--first[level[u]]] = u;
  }
  PetscCall(PetscFree(first));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A name this package renamed, still taken: PETSc's deprecation warning as PetscOptionsDeprecated()
   words it, once per *warned (the caller's), on the first process, not under
   -options_suppress_deprecated_warnings */
static inline PetscErrorCode MatSpmvWarnRenamed(const char *oldname, const char *newname, const char *version, PetscBool *warned)
{
  PetscBool quiet = PETSC_FALSE;

  PetscFunctionBegin;
  if (*warned) PetscFunctionReturn(PETSC_SUCCESS);
  *warned = PETSC_TRUE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-options_suppress_deprecated_warnings", &quiet, NULL));
  if (!quiet) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Warning: %s is deprecated as of version %s and will be removed in a future release. Use %s instead\n", oldname, version, newname));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- floor 1: formats.c ---- */
/* The device operations above the layer (their packages include this header alone), which the layer
   reaches only through this table, as it reaches the formats through theirs: the package fills it by
   their registrations (MatSpmvSORRegister(), MatSpmvSpGEMMRegister()); an entry left NULL is PETSc's
   own path */
typedef PetscErrorCode (*MatSpmvSORFunction)(Mat, Vec, PetscReal, MatSORType, PetscReal, PetscInt, PetscInt, Vec);
typedef struct {
  /* src/mat/impls/spmvsor/: MatSOR() on the device for a sequential matrix whose CSR aijcusparse keeps
     there (the given host SOR where the device does not take a call); an MPI one's (MPIAIJ's sweeps of
     the diagonal block, host vectors staged through CUDA ones) */
  PetscErrorCode (*setsor)(Mat, MatSpmvSORFunction);
  PetscErrorCode (*setsormpi)(Mat, MatSpmvSORFunction);
  /* src/mat/impls/spmvspgemm/ (registered while -petscspmv_spgemm is on): whether it takes the sparse
     product of C (its symbolic phase then set; else aijcusparse's choice), and whether f is one of its
     phases */
  PetscErrorCode (*productsetfromoptions)(Mat, PetscBool *);
  PetscBool (*isproductphase)(PetscErrorCode (*)(Mat));
  /* the same SpGEMM on two device CSRs, C = A B with C's pattern kept on the device (the MPI products'
     local products): the symbolic phase (a plan, and C's m, n, nnz, i, j), the numeric one (C's values
     into an array of nnz), the plan freed */
  PetscErrorCode (*spgemmsymbolic)(const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, void **, MatSpmvDeviceCSR *);
  PetscErrorCode (*spgemmnumeric)(void *, const MatSpmvDeviceCSR *, const MatSpmvDeviceCSR *, PetscScalar *);
  PetscErrorCode (*spgemmdestroy)(void **);
} MatSpmvDeviceOps;
PETSC_INTERN MatSpmvDeviceOps MatSpmvDeviceOperations;
/* -petscspmv_format_only: our types differ from aijcusparse in their SpMV format alone; the table stays
   empty, and the factors, GAMG's set-up, MatCreateGraph(), the value-changing operations and the MPI
   results' assembly are aijcusparse's and PETSc's */
PETSC_INTERN PetscBool MatSpmvFormatOnly;
