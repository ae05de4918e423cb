/*
  MatCreateGraph() for our sequential types: the scalar graph GAMG coarsens (absolute values, plus the
  transpose, scaled by the diagonal) made from aijcusparse's device CSR in a few device passes and
  copied to the host once, where GAMG's coarsening reads it. PETSc's MatCreateGraph_Simple_AIJ makes
  it on the host (a copy of A, its transpose, a sum of two patterns), with copies between host and
  device around each step. The graph is an aijcusparse matrix, as aijcusparse's own graph is: GAMG's
  squared graph is then aijcusparse's device product, and no layout of ours is built for it.
  Block sizes above 1 are collapsed first (the sum of |a| over each block, as PETSc's). Complex
  scalars, a strength index with blocks, a matrix bound to the CPU or without device values take
  the base's function. MPI matrices take PETSc's function on an aijcusparse copy.
*/
#include "spmvimpl.h"

#if defined(PETSC_HAVE_CUDA) && !defined(PETSC_USE_COMPLEX) /* graph.cu makes real graphs */
  #define MATSPMV_DEVICE_GRAPH
#endif

/* whether the graph of A can be made on the device (else why not, for -info), and A's nonzeros */
static PetscErrorCode MatSpmvGraphOnDevice(Mat A, PetscInt index_size, PetscBool *device, const char **why, PetscInt *nnz)
{
  PetscInt bs;
  MatInfo  info;

  PetscFunctionBegin;
  *device = PETSC_FALSE;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  *nnz = (PetscInt)info.nz_used;
#if !defined(MATSPMV_DEVICE_GRAPH)
  *why = "a build without CUDA, or with complex scalars";
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
  if (bs > 1 && index_size) *why = "a strength index (-pc_gamg_mat_coarsen_strength_index)";
  else if (A->rmap->n != A->cmap->n) *why = "a rectangular matrix";
  else if (A->rmap->n % bs) *why = "rows not a multiple of the block size";
  else if (info.nz_used == 0) *why = "an empty matrix";
  else if (info.nz_used > PETSC_INT32_MAX / 2) *why = "more nonzeros than the graph's int offsets hold";
  else {
    PetscCall(MatSpmvDeviceCSRUsable(A, device));
    if (!*device) *why = "a matrix on the host or bound to the CPU, 64-bit indices, or no GPU";
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

#if defined(MATSPMV_DEVICE_GRAPH)
/* the host CSR of a graph, which MatCreateSeqAIJWithArrays() leaves to its caller: composed with
   the graph, freed with it */
typedef struct {
  PetscInt    *i, *j;
  PetscScalar *a;
} MatSpmvGraphCSR;

static PetscErrorCode MatSpmvGraphCSRDestroy(PetscCtxRt ctx)
{
  MatSpmvGraphCSR *csr = *(MatSpmvGraphCSR **)ctx;

  PetscFunctionBegin;
  PetscCall(PetscFree3(csr->i, csr->j, csr->a));
  PetscCall(PetscFree(csr));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the device CSR (m rows, nnz entries) copied into a new host MATSEQAIJ, then made an aijcusparse
   matrix (whose device copy is made at its first device use) */
static PetscErrorCode MatSpmvGraphFromDevice(PetscInt m, PetscInt nnz, const int *d_gi, const int *d_gj, const PetscScalar *d_ga, Mat *G)
{
  MatSpmvGraphCSR *csr;
  void            *stream;

  PetscFunctionBegin;
  PetscCall(PetscNew(&csr));
  PetscCall(PetscMalloc3(m + 1, &csr->i, nnz, &csr->j, nnz, &csr->a));
  PetscCall(MatSpmvCUDAGetStream(&stream));
  PetscCall(MatSpmvCUDACopyToHost(csr->i, d_gi, (m + 1) * sizeof(int), stream));
  PetscCall(MatSpmvCUDACopyToHost(csr->j, d_gj, nnz * sizeof(int), stream));
  PetscCall(MatSpmvCUDACopyToHost(csr->a, d_ga, nnz * sizeof(PetscScalar), stream));
  PetscCall(MatSpmvCUDASynchronize(stream));
  PetscCall(PetscLogGpuToCpu((m + 1 + nnz) * sizeof(int) + nnz * sizeof(PetscScalar)));
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, m, csr->i, csr->j, csr->a, G));
  PetscCall(PetscObjectContainerCompose((PetscObject)*G, "MatSpmvGraphCSR", csr, MatSpmvGraphCSRDestroy));
  PetscCall(MatConvert(*G, MATSEQAIJCUSPARSE, MAT_INPLACE_MATRIX, G));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#endif

static PetscErrorCode MatCreateGraph_SeqAIJSpmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  PetscBool   device;
  const char *why = NULL;
  PetscInt    bs, nnz = 0;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatSpmvGraphOnDevice(A, index_size, &device, &why, &nnz));
  if (!device || (bs == 1 && !symmetrize && !scale && filter < 0)) { /* the latter: A itself is the graph */
    if (!device) PetscCall(PetscInfo(A, "MatCreateGraph() by the base's function (PETSc's, on the host): %s\n", why));
    PetscCall(MatSpmvSeq(A)->base->creategraph(A, symmetrize, scale, filter, index_size, index, G));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
#if defined(MATSPMV_DEVICE_GRAPH)
  {
    const int         *d_i, *d_j;
    int               *d_gi, *d_gj;
    const PetscScalar *d_a;
    PetscScalar       *d_ga;
    PetscInt           gnnz, m = A->rmap->n;
    void              *stream;
    PetscBool          transpose = symmetrize, isset, issym;

    PetscCall(MatIsSymmetricKnown(A, &isset, &issym));
    if (isset && issym) transpose = PETSC_FALSE; /* as PETSc's: a known symmetric A is its own transpose */
    PetscCall(MatSpmvCUSPARSEGetIJ(A, &d_i, &d_j));
    PetscCall(MatSpmvCUSPARSEGetValues(A, &d_a));
    PetscCall(MatSpmvCUDAGetStream(&stream));
    PetscCall(PetscLogGpuTimeBegin());
    /* absolute values wherever PETSc's takes them: to scale or to filter */
    PetscCall(MatSpmvCUDAGraph(m, bs, nnz, d_i, d_j, d_a, (PetscBool)(scale || filter >= 0), transpose, scale, &d_gi, &d_gj, &d_ga, &gnnz, stream));
    PetscCall(PetscLogGpuTimeEnd());
    PetscCall(MatSpmvCUSPARSERestoreValues(A, &d_a));
    PetscCall(MatSpmvGraphFromDevice(m / bs, gnnz, d_gi, d_gj, d_ga, G));
    PetscCall(MatSpmvCUDAFree(d_ga));
    PetscCall(MatSpmvCUDAFree(d_gj));
    PetscCall(MatSpmvCUDAFree(d_gi));
    PetscCall(PetscInfo(A, "MatCreateGraph() on the device: %" PetscInt_FMT " rows (block size %" PetscInt_FMT "), %" PetscInt_FMT " entries (%s)\n", m / bs, bs, gnnz, transpose ? "A + A^T" : "A"));
  }
#endif
  if (symmetrize) PetscCall(MatSetOption(*G, MAT_SYMMETRIC, PETSC_TRUE));
  else PetscCall(MatPropagateSymmetryOptions(A, *G));
  PetscCall(MatViewFromOptions(*G, NULL, "-mat_graph_view"));
  if (filter >= 0) {
    PetscCall(MatFilter(*G, filter, PETSC_TRUE, PETSC_TRUE)); /* PETSc's, on the graph */
    PetscCall(MatViewFromOptions(*G, NULL, "-mat_filter_graph_view"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base (a bound matrix takes the base's inside) */
PetscErrorCode MatSpmvSetGraphOps_SeqAIJSpmv(Mat A)
{
  PetscFunctionBegin;
  if (MatSpmvSeq(A)->base->cusparse) A->ops->creategraph = MatCreateGraph_SeqAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MPI matrices: PETSc's graph (its transpose crosses the processes), made from an aijcusparse copy of
   A, so that the graph and GAMG's products with it (the squared graph) are aijcusparse's, as for an
   aijcusparse operator. PETSc's function would make the graph a copy of A in our type, changed in
   place on the host, and our layouts built for it */
static PetscErrorCode MatCreateGraph_MPIAIJSpmv(Mat A, PetscBool symmetrize, PetscBool scale, PetscReal filter, PetscInt index_size, PetscInt index[], Mat *G)
{
  Mat B;

  PetscFunctionBegin;
  PetscCall(PetscInfo(A, "MatCreateGraph() by PETSc's function on an aijcusparse copy\n"));
  PetscCall(MatConvert(A, MATMPIAIJCUSPARSE, MAT_INITIAL_MATRIX, &B));
  PetscCall(MatCreateGraph(B, symmetrize, scale, filter, index_size, index, G));
  PetscCall(MatDestroy(&B)); /* a reference stays where the graph is B itself */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ours on the aijcusparse base */
PetscErrorCode MatSpmvSetGraphOps_MPIAIJSpmv(Mat A, MatSpmvBaseOps *base)
{
  PetscFunctionBegin;
  if (base->cusparse) A->ops->creategraph = MatCreateGraph_MPIAIJSpmv;
  PetscFunctionReturn(PETSC_SUCCESS);
}
